package badutf8

import (
	"testing"
	"unicode/utf8"
)

func TestOffset(t *testing.T) {
	tests := []struct {
		name, in string
		want     int
	}{
		{"empty", "", 0},
		{"ASCII", "plain", 5},
		{"multibyte", "naïve 日本", len("naïve 日本")},
		{"Latin-1 byte", "caf\xe9 au lait", 3},
		{"first byte", "\xffabc", 0},
		{"cut at the end", "ok \xe6\x97", 3},
		{"continuation alone", "a\x80b", 1},
		{"overlong", "x\xc0\xafy", 1},
		{"surrogate", "x\xed\xa0\x80", 1},
		{"U+FFFD itself is valid", "a\uFFFDb", len("a\uFFFDb")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Offset(tc.in); got != tc.want {
				t.Errorf("Offset(%q) = %d, want %d", tc.in, got, tc.want)
			}
			if got := Offset([]byte(tc.in)); got != tc.want {
				t.Errorf("Offset([]byte(%q)) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzOffset holds the definition: everything before the offset is valid,
// and at the offset a bad byte starts (nothing, when it is the end).
func FuzzOffset(f *testing.F) {
	for _, s := range []string{"", "abc", "caf\xe9", "\xed\xa0\x80", "日本\xe6\x97"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		i := Offset(b)
		if i != Offset(string(b)) {
			t.Fatalf("string and bytes disagree on %q", b)
		}
		if i < 0 || i > len(b) || !utf8.Valid(b[:i]) {
			t.Fatalf("Offset(%q) = %d: not a valid prefix", b, i)
		}
		if i == len(b) {
			if !utf8.Valid(b) {
				t.Fatalf("Offset(%q) = len, but it is not valid", b)
			}
			return
		}
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n != 1 {
			t.Fatalf("Offset(%q) = %d, where a valid rune starts", b, i)
		}
	})
}
