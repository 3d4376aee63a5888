package ascii

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
		if got, want := IsIdentStart(c), letter || c == '_'; got != want {
			t.Errorf("IsIdentStart(%q) = %v, want %v", c, got, want)
		}
		if got, want := IsWordByte(c), letter || c == '_' || c >= '0' && c <= '9'; got != want {
			t.Errorf("IsWordByte(%q) = %v, want %v", c, got, want)
		}
		if got, want := IsLetter(c), letter; got != want {
			t.Errorf("IsLetter(%q) = %v, want %v", c, got, want)
		}
		if got, want := IsLower(c), c < 0x80 && unicode.IsLower(rune(c)); got != want {
			t.Errorf("IsLower(%q) = %v, want %v", c, got, want)
		}
		if got, want := IsUpper(c), c < 0x80 && unicode.IsUpper(rune(c)); got != want {
			t.Errorf("IsUpper(%q) = %v, want %v", c, got, want)
		}
		if got, want := IsDigit(c), c < 0x80 && unicode.IsDigit(rune(c)); got != want {
			t.Errorf("IsDigit(%q) = %v, want %v", c, got, want)
		}
	}
}
