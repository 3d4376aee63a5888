//go:build !race

package index

// raceEnabled: the tests are built with -race (see race_test.go).
const raceEnabled = false
