// Package ascii holds the one ASCII identifier rule that the index and the
// selection share (Go's, and most languages'): a letter or '_' starts an
// identifier, digits may follow. The lexical references of files without a
// grammar and the Go scanner's ASCII fast path (slicer/index) and the terms
// and mentions of ranking (slicer) all use it, so that a name the index
// records is a name ranking can match. Non-ASCII letters are left to the
// callers that accept them (the Go scanner).
package ascii

// IsIdentStart reports whether c starts an identifier: an ASCII letter or '_'.
func IsIdentStart(c byte) bool { return IsLetter(c) || c == '_' }

// IsWordByte reports whether c may continue an identifier: IsIdentStart or a digit.
func IsWordByte(c byte) bool { return IsIdentStart(c) || IsDigit(c) }

// IsLetter reports whether c is an ASCII letter.
func IsLetter(c byte) bool { return IsLower(c) || IsUpper(c) }

// IsLower reports whether c is an ASCII lower-case letter.
func IsLower(c byte) bool { return 'a' <= c && c <= 'z' }

// IsUpper reports whether c is an ASCII upper-case letter.
func IsUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return '0' <= c && c <= '9' }
