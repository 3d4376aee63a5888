package index

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
)

// goLexer is goBodies.tokenize's state: the source, the tokens so far and
// the kind of the last one (which decides whether a newline inserts a
// semicolon). Each scanner below reads one kind of token starting at
// src[i], appends it, and returns the index after it; false means a
// lexical error tokenize does not follow.
type goLexer struct {
	src  []byte
	toks []gtok
	last gkind
}

// emit appends a token of kind k spanning src[s:e].
func (l *goLexer) emit(k gkind, s, e int) {
	l.toks = append(l.toks, gtok{kind: k, start: uint32(s), end: uint32(e)})
	l.last = k
}

// newline inserts a semicolon at offset at when the last token ends a line.
func (l *goLexer) newline(at int) {
	if endsLine(l.last) {
		l.emit(gSemi, at, at)
	}
}

// byteAt reports whether src[i] exists and is b.
func (l *goLexer) byteAt(i int, b byte) bool { return i < len(l.src) && l.src[i] == b }

// digitAt reports whether src[i] exists and is a decimal digit.
func (l *goLexer) digitAt(i int) bool { return i < len(l.src) && l.src[i] >= '0' && l.src[i] <= '9' }

// asciiWordEnd returns the end of the ASCII word bytes from src[i]. An
// identifier is scanned by it and, only where a non-ASCII character
// follows, by unicodeWord: this loop is small enough to inline, which
// tokenize's speed depends on (a call per identifier costs it a tenth).
func asciiWordEnd(src []byte, i int) int {
	for i < len(src) && ascii.IsWordByte(src[i]) {
		i++
	}
	return i
}

// unicodeWord continues the identifier src[i:j] past j, where a non-ASCII
// character sits, and returns its end: ASCII word bytes, Unicode letters
// and (not first) Unicode digits. It returns i when src[i] is a non-ASCII
// character that is no letter.
func (l *goLexer) unicodeWord(i, j int) int {
	src := l.src
	for j < len(src) {
		d := src[j]
		if ascii.IsWordByte(d) {
			j++
			continue
		}
		if d < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeRune(src[j:])
		if r == utf8.RuneError && n <= 1 || !unicode.IsLetter(r) && (j == i || !unicode.IsDigit(r)) {
			break
		}
		j += n
	}
	return j
}

// wordKind is the kind of word w: a keyword's, or gIdent.
func wordKind(w []byte) gkind {
	if len(w) >= 2 && len(w) <= 11 && w[0] >= 'a' && w[0] <= 'z' {
		return goKeyword(w)
	}
	return gIdent
}

// number scans a numeric literal, loosely: digits, letters, '_' and '.',
// and a sign after the exponent letter.
func (l *goLexer) number(i int) int {
	src := l.src
	// An exponent's sign follows e in a decimal literal, p in a
	// hexadecimal one: 0xe-x is 0xe minus x.
	exp := byte('e')
	if src[i] == '0' && i+1 < len(src) && src[i+1]|0x20 == 'x' {
		exp = 'p'
	}
	j := i + 1
	for j < len(src) {
		d := src[j]
		if d == '_' || d == '.' || d|0x20 >= 'a' && d|0x20 <= 'z' || d >= '0' && d <= '9' {
			j++
		} else if (d == '+' || d == '-') && src[j-1]|0x20 == exp {
			j++
		} else {
			break
		}
	}
	l.emit(gLit, i, j)
	return j
}

// quoted scans an interpreted string or a rune literal, whichever quote
// src[i] is; it fails at a newline or the end before the closing quote.
func (l *goLexer) quoted(i int) (int, bool) {
	src, c := l.src, l.src[i]
	j := i + 1
	for ; j < len(src) && src[j] != c; j++ {
		if src[j] == '\n' {
			return i, false
		}
		if src[j] == '\\' {
			j++
		}
	}
	if j >= len(src) {
		return i, false
	}
	l.emit(gLit, i, j+1)
	return j + 1, true
}

// raw scans a raw string; it fails when no backquote closes it.
func (l *goLexer) raw(i int) (int, bool) {
	j := bytes.IndexByte(l.src[i+1:], '`')
	if j < 0 {
		return i, false
	}
	l.emit(gLit, i, i+j+2)
	return i + j + 2, true
}

// lineComment skips a // comment up to its newline, which is seen next.
func (l *goLexer) lineComment(i int) int {
	j := bytes.IndexByte(l.src[i:], '\n')
	if j < 0 {
		j = len(l.src) - i
	}
	return i + j // the newline is seen next
}

// blockComment skips a /* comment */, which acts as a newline when it holds
// one; it fails when the comment is not closed.
func (l *goLexer) blockComment(i int) (int, bool) {
	src := l.src
	j := bytes.Index(src[i+2:], []byte("*/"))
	if j < 0 {
		return i, false
	}
	if bytes.IndexByte(src[i+2:i+2+j], '\n') >= 0 {
		l.newline(i)
	}
	return i + j + 4, true
}

// punct scans an operator or punctuation: the brackets, ";", ",", ":",
// ":=", "++" and "--" have kinds of their own, other operators are gOther,
// one byte each. It fails on a byte that is not Go outside literals and
// comments.
func (l *goLexer) punct(i int) (int, bool) {
	src, c := l.src, l.src[i]
	k := gOther
	n := 1
	switch c {
	case ';':
		k = gSemi
	case ',':
		k = gComma
	case '{':
		k = gLbrace
	case '}':
		k = gRbrace
	case '(':
		k = gLparen
	case ')':
		k = gRparen
	case '[':
		k = gLbrack
	case ']':
		k = gRbrack
	case ':':
		k = gColon
		if i+1 < len(src) && src[i+1] == '=' {
			k, n = gDefine, 2
		}
	case '+', '-':
		if i+1 < len(src) && src[i+1] == c {
			k, n = gIncDec, 2
		}
	case '!', '%', '&', '*', '.', '/', '<', '=', '>', '^', '|', '~':
	default:
		return i, false // not a Go character outside literals and comments
	}
	l.emit(k, i, i+n)
	return i + n, true
}
