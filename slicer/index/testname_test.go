package index

import "testing"

func TestTestStem(t *testing.T) {
	for _, tc := range []struct {
		base, stem string
		test       bool
	}{
		{"client_test.go", "client", true},
		{"test_client.py", "client", true},
		{"client_tests.py", "client", true},
		{"client.test.ts", "client", true},
		{"client.spec.js", "client", true},
		{"client_spec.rb", "client", true},
		{"ClientTest.java", "Client", true},
		{"ClientTests.cs", "Client", true},
		{"tests.py", "tests", true}, // Django's module of tests
		{"Test.java", "Test", true},
		{"test.yml", "test", false}, // a CI workflow
		{"test.sh", "test", false},  // a runner script
		{"client.go", "client", false},
		// Words that end in "test" are not tests (the index once took
		// Latest.java and contests.py for tests).
		{"Latest.java", "Latest", false},
		{"latest.go", "latest", false},
		{"contests.py", "contests", false},
		{"_test.go", "_test", false}, // a marker with nothing before it
		{"test_.py", "test_", false},
		{"protest.ts", "protest", false},
	} {
		stem, test := TestStem(tc.base)
		if stem != tc.stem || test != tc.test {
			t.Errorf("TestStem(%q) = %q, %v; want %q, %v", tc.base, stem, test, tc.stem, tc.test)
		}
	}
}

func TestIsTestPath(t *testing.T) {
	for _, tc := range []struct {
		dirs []string
		base string
		want bool
	}{
		{nil, "client_test.go", true},
		{[]string{"tests"}, "conftest.py", true},
		{[]string{"pkg", "__tests__"}, "client.js", true},
		{[]string{"internal", "testutil"}, "fake.go", true},
		{[]string{"Tests"}, "helper.cs", true}, // any case
		{[]string{"src"}, "Latest.java", false},
		{[]string{"contest"}, "rules.go", false},
	} {
		if got := isTestPath(tc.dirs, tc.base); got != tc.want {
			t.Errorf("isTestPath(%q, %q) = %v, want %v", tc.dirs, tc.base, got, tc.want)
		}
	}
}
