package slicer

import (
	"testing"
	"unicode"
)

// TestIdentRule holds the one ASCII identifier rule to its definition:
// an ASCII letter or '_' starts an identifier, digits may follow.
func TestIdentRule(t *testing.T) {
	for b := 0; b < 256; b++ {
		c := byte(b)
		letter := c < 0x80 && unicode.IsLetter(rune(c))
		if got, want := isIdentStart(c), letter || c == '_'; got != want {
			t.Errorf("isIdentStart(%q) = %v, want %v", c, got, want)
		}
		if got, want := isWordByte(c), letter || c == '_' || c >= '0' && c <= '9'; got != want {
			t.Errorf("isWordByte(%q) = %v, want %v", c, got, want)
		}
	}
}

// TestBinaryAt: git's rule, a NUL in the first 8000 bytes, with its offset.
func TestBinaryAt(t *testing.T) {
	text := make([]byte, BinarySniffBytes+10)
	for i := range text {
		text[i] = 'a'
	}
	at := func(i int) []byte { b := append([]byte(nil), text...); b[i] = 0; return b }
	tests := []struct {
		name string
		in   []byte
		want int
	}{
		{"empty", nil, -1},
		{"text", text, -1},
		{"NUL first", at(0), 0},
		{"NUL at the last sniffed byte", at(BinarySniffBytes - 1), BinarySniffBytes - 1},
		{"NUL past the sniffed bytes", at(BinarySniffBytes), -1},
		{"short with NUL", []byte("ab\x00"), 2},
	}
	for _, tc := range tests {
		if got := BinaryAt(tc.in); got != tc.want {
			t.Errorf("%s: BinaryAt = %d, want %d", tc.name, got, tc.want)
		}
	}
}
