package slicer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"camel with acronym", "parseHTTPHeader", []string{"parse", "http", "header", "parsehttpheader"}},
		{"snake", "max_file_size", []string{"max", "file", "size", "maxfilesize"}},
		{"kebab gives parts and compound", "object-format", []string{"object", "format", "objectformat"}},
		{"short kebab compound dropped", "no-op", []string{"op"}},
		{"digit then capital", "utf8Reader", []string{"utf8", "reader", "utf8reader"}},
		{"stems", "retries headers matched caching", []string{"retry", "header", "match", "cach"}},
		{"stop words and numbers dropped", "the 503 of it", nil},
		{"single letters dropped", "a b xY", nil},
		{"plural acronyms", "URLs IDs APIsFor fileURLs", []string{"url", "id", "api", "apifor", "file", "url", "fileurl"}},
		{"acronym then a word in s", "URLsafe HTTPServer", []string{"ur", "lsafe", "urlsafe", "http", "server", "httpserver"}},
		{"one-letter prefix still compounds", "IDictionary ILogger getX", []string{"dictionary", "idictionary", "logger", "ilogger", "get", "getx"}},
		{"the same name as one word", "drop the idictionary cast", []string{"drop", "idictionary", "cast"}},
		{"escapes", `"\nusage:\tretry" \fBPATH\fP \fIpattern\fR \\x`, []string{"usage", "retry", "path", "pattern"}},
		{"contractions", "it doesn't and we'll see", []string{"see"}},
		{"prose and code agree", "Retry on 503 loses the request body: retryRequest", []string{"retry", "lose", "request", "body", "retry", "request", "retryrequest"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, terms(tc.in, nil)); diff != "" {
				t.Errorf("terms(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// FuzzTerms checks that scanning never panics, that the length scan
// returns is at least the number of terms it emitted, and that the only
// filter changes what is emitted but not the length.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"parseHTTPHeader", "a_b_c", "ÄÖÜ x9Y", "__init__", "\x00\xff", "IDictionary getX"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var sc termScanner
		got := 0
		n := sc.scan([]byte(s), func(term []byte) {
			if len(term) == 0 {
				t.Fatalf("empty term from %q", s)
			}
			got++
		})
		if n < got {
			t.Fatalf("scan(%q) returned length %d, emitted %d", s, n, got)
		}
		only := new(prefixSet)
		only[prefixKey([]byte("re"))] = true
		filtered := termScanner{only: only}
		if m := filtered.scan([]byte(s), func(term []byte) {
			if string(term[:2]) != "re" {
				t.Fatalf("filtered scan emitted %q", term)
			}
		}); m != n {
			t.Fatalf("filtered length %d, unfiltered %d", m, n)
		}
	})
}
