//go:build race

package index

// raceEnabled: the tests are built with -race, whose shadow memory grows
// outside the Go heap with every allocation.
const raceEnabled = true
