// Package badutf8 finds where text stops being UTF-8, for the errors that
// name the first bad byte ("not valid UTF-8 (first bad byte at offset
// 3)"): the CLI's input table, check's prompt files and the index's
// skipped files say the same offset of the same byte.
package badutf8

import "unicode/utf8"

// Offset returns the offset of the first byte of b that is not part of
// valid UTF-8 (a byte that starts no encoding, an encoding cut short,
// overlong, or of a surrogate), or len(b) when b is valid.
func Offset[T string | []byte](b T) int {
	var valid bool
	switch v := any(b).(type) {
	case string:
		valid = utf8.ValidString(v)
	case []byte:
		valid = utf8.Valid(v)
	}
	if valid {
		return len(b)
	}
	for i := 0; i < len(b); {
		// At most one rune's bytes are converted, so a string is not
		// copied whole.
		r, n := utf8.DecodeRune([]byte(b[i:min(len(b), i+utf8.UTFMax)]))
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
