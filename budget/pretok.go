package budget

import (
	"unicode"
	"unicode/utf8"
)

// This file is a regexp-free pre-tokenizer. It splits text into exactly the
// pieces that tiktoken's split patterns produce, as matched by the reference
// (github.com/pkoukk/tiktoken-go, which runs the patterns with
// github.com/dlclark/regexp2: leftmost alternative wins, quantifiers are
// greedy and backtrack, \s is unicode.IsSpace, \p{..} are Go's unicode
// tables, (?i) compares unicode.ToLower of the input).
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// o200k_base (A = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], B = [\p{Ll}\p{Lm}\p{Lo}\p{M}],
// C = (?i:'s|'t|'re|'ve|'m|'ll|'d)):
//
//	[^\r\n\p{L}\p{N}]?A*B+C?|[^\r\n\p{L}\p{N}]?A+B*C?|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Every character starts a match of one alternative, so the matches tile the
// text and a piece is fully described by where it ends. The functions below
// compute, for a piece starting at i, the end the backtracking matcher
// reaches, alternative by alternative:
//
//   - \s*[\r\n]+ : \s* takes the whole whitespace run [i,j), then gives back
//     one character at a time until [\r\n]+ can match; the match therefore
//     ends just after the last \r or \n of the run, and fails if there is none.
//   - \s+(?!\S) : the run [i,j) is followed by a non-space (or the end); at the
//     end of text the whole run matches, otherwise the run minus its last
//     character, which needs a run of at least two characters.
//   - A*B+ : A* takes the whole A-run [p,q); if the character at q is in B
//     the match runs to the end of the B-run from q; otherwise A* gives back
//     characters until the last one it had is in B (Lm, Lo or M), which
//     then ends the match; it fails if there is none.
//   - The optional one-character prefix [^\r\n\p{L}\p{N}]? is tried first
//     taken, then not taken, before moving to the next alternative.
//
// Text must be valid UTF-8: the reference decodes input with []rune(s), so
// Count first replaces each invalid byte with U+FFFD exactly as that does.

// Character classes, as bits.
const (
	clsL     = 1 << iota // \p{L}
	clsN                 // \p{N}
	clsSpace             // \s (unicode.IsSpace)
	clsA                 // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsB                 // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clsCRLF              // \r or \n
)

// asciiClass holds the classes of the ASCII characters.
var asciiClass = func() (t [128]uint8) {
	for r := range rune(128) {
		t[r] = classOfSlow(r)
	}
	return t
}()

func classOfSlow(r rune) uint8 {
	var c uint8
	switch {
	case unicode.Is(unicode.Ll, r):
		c = clsL | clsB
	case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
		c = clsL | clsA
	case unicode.Is(unicode.Lm, r), unicode.Is(unicode.Lo, r):
		c = clsL | clsA | clsB
	case unicode.Is(unicode.M, r):
		c = clsA | clsB
	case unicode.Is(unicode.N, r):
		c = clsN
	case unicode.IsSpace(r):
		c = clsSpace
		if r == '\r' || r == '\n' {
			c |= clsCRLF
		}
	}
	return c
}

// classAt decodes the rune at s[i] (i < len(s)) and returns its class and size.
func classAt(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classOfRune(r), n
}

// classOfRune is classOfSlow with fast paths for the large blocks of
// ideographs and syllables (checked against classOfSlow by a test).
func classOfRune(r rune) uint8 {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0xAC00 && r <= 0xD7A3, r >= 0x3400 && r <= 0x4DBF:
		return clsL | clsA | clsB // Lo
	}
	return classOfSlow(r)
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i:],
// or 0. Only ASCII letters lower-case to these letters (a test checks this
// against unicode.ToLower), so comparing bytes with 0x20 set is exact.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return 3
		}
	}
	return 0
}

// spaceEnd handles a piece starting at i with whitespace once the earlier
// alternatives have failed: \s*[\r\n]+|\s+(?!\S)|\s+.
func spaceEnd(s string, i int) int {
	j := i
	lastNL := -1  // index just after the last \r or \n of the run
	lastRune := i // start of the last rune of the run
	for j < len(s) {
		c := s[j]
		if c < utf8.RuneSelf {
			cls := asciiClass[c]
			if cls&clsSpace == 0 {
				break
			}
			if cls&clsCRLF != 0 {
				lastNL = j + 1
			}
			lastRune = j
			j++
			continue
		}
		cls, n := classAt(s, j)
		if cls&clsSpace == 0 {
			break
		}
		lastRune = j
		j += n
	}
	switch {
	case lastNL >= 0:
		return lastNL
	case j == len(s):
		return j
	case lastRune > i:
		return lastRune
	}
	return j
}

// punctEnd returns the end of [^\s\p{L}\p{N}]+ then [\r\n]* (and '/' when
// slash is set, for o200k_base) from i; the first character is known to be
// in the class.
func punctEnd(s string, i int, slash bool) int {
	j := i
	for j < len(s) {
		cls, n := classAt(s, j)
		if cls&(clsSpace|clsL|clsN) != 0 {
			break
		}
		j += n
	}
	for j < len(s) && (s[j] == '\r' || s[j] == '\n' || slash && s[j] == '/') {
		j++
	}
	return j
}

// letterEnd returns the end of the \p{L}+ run from i.
func letterEnd(s string, i int) int {
	for i < len(s) {
		cls, n := classAt(s, i)
		if cls&clsL == 0 {
			break
		}
		i += n
	}
	return i
}

// digitsEnd returns the end of \p{N}{1,3} from i (s[i] is a number).
func digitsEnd(s string, i int) int {
	for k := 0; k < 3 && i < len(s); k++ {
		cls, n := classAt(s, i)
		if cls&clsN == 0 {
			break
		}
		i += n
	}
	return i
}

// cl100kNext returns the end of the cl100k_base piece starting at i < len(s).
func cl100kNext(s string, i int) int {
	c0, n0 := classAt(s, i)
	if s[i] == '\'' {
		if n := contraction(s, i); n > 0 {
			return i + n
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c0&clsL != 0 {
		return letterEnd(s, i+n0)
	}
	if c0&(clsCRLF|clsN) == 0 && i+n0 < len(s) {
		if c1, n1 := classAt(s, i+n0); c1&clsL != 0 {
			return letterEnd(s, i+n0+n1)
		}
	}
	if c0&clsN != 0 {
		return digitsEnd(s, i)
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	if c0&clsSpace == 0 {
		return punctEnd(s, i+n0, false)
	}
	if s[i] == ' ' && i+1 < len(s) {
		if c1, _ := classAt(s, i+1); c1&(clsSpace|clsL|clsN) == 0 {
			return punctEnd(s, i+1, false)
		}
	}
	return spaceEnd(s, i)
}

// o200kNext returns the end of the o200k_base piece starting at i < len(s).
func o200kNext(s string, i int) int {
	c0, n0 := classAt(s, i)
	// Alternatives 1 and 2, each tried with the optional prefix
	// [^\r\n\p{L}\p{N}] taken, then not taken, as regexp2 backtracks
	// into the prefix before leaving an alternative. Both with and without
	// the prefix can apply only when c0 is a mark (\p{M} is in A and B and
	// not in \p{L}).
	prefix := c0&(clsCRLF|clsN|clsL) == 0 && i+n0 < len(s)
	word := c0&(clsA|clsB) != 0
	if prefix {
		if e := wordAB(s, i+n0); e >= 0 {
			return e
		}
	}
	if word {
		if e := wordAB(s, i); e >= 0 {
			return e
		}
	}
	if prefix {
		if e := wordAplusB(s, i+n0); e >= 0 {
			return e
		}
	}
	if word {
		if e := wordAplusB(s, i); e >= 0 {
			return e
		}
	}
	if c0&clsN != 0 {
		return digitsEnd(s, i)
	}
	if c0&clsSpace == 0 {
		return punctEnd(s, i+n0, true)
	}
	if s[i] == ' ' && i+1 < len(s) {
		if c1, _ := classAt(s, i+1); c1&(clsSpace|clsL|clsN) == 0 {
			return punctEnd(s, i+1, true)
		}
	}
	return spaceEnd(s, i)
}

// wordAB matches A*B+C? at p, returning its end or -1.
func wordAB(s string, p int) int {
	q := p
	lastB := -1 // end of the last A-run character that is also in B
	for q < len(s) {
		cls, n := classAt(s, q)
		if cls&clsA == 0 {
			if cls&clsB != 0 {
				// Ll: B+ runs on from q.
				e := q + n
				for e < len(s) {
					c, m := classAt(s, e)
					if c&clsB == 0 {
						break
					}
					e += m
				}
				return e + contraction(s, e)
			}
			break
		}
		q += n
		if cls&clsB != 0 {
			lastB = q
		}
	}
	if lastB < 0 {
		return -1
	}
	return lastB + contraction(s, lastB)
}

// wordAplusB matches A+B*C? at p, returning its end or -1.
func wordAplusB(s string, p int) int {
	q := p
	for q < len(s) {
		cls, n := classAt(s, q)
		if cls&clsA == 0 {
			break
		}
		q += n
	}
	if q == p {
		return -1
	}
	for q < len(s) {
		cls, n := classAt(s, q)
		if cls&clsB == 0 {
			break
		}
		q += n
	}
	return q + contraction(s, q)
}
