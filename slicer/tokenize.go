package slicer

import (
	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
)

// This file splits text into the terms that lexical ranking compares:
// identifier sub-words, lowercased and lightly stemmed.

// termScanner splits text into terms. It reuses its buffer, so one scanner
// must not be shared between goroutines. The zero value is ready to use.
type termScanner struct {
	buf  []byte // lowercased current part
	word []byte // lowercased compound of the current identifier
	// only, when set, holds the two-byte prefixes of the terms the caller
	// wants: other terms are counted but neither stemmed nor emitted. It
	// is the fast path of the content scan, where only the task's terms
	// matter; stemming never changes a term's first two bytes.
	only *prefixSet
	// keep holds the stop words the task raised to terms (flagWords):
	// they are emitted like any other term.
	keep map[string]bool
}

// prefixSet is a set of two-byte term prefixes.
type prefixSet [1 << 16]bool

func prefixKey(t []byte) uint16 { return uint16(t[0])<<8 | uint16(t[1]) }

// scan calls emit for every term of src, in order, and returns the length
// of src in terms (stop words included). The slice passed to emit is only valid during the call.
//
// A term is a sub-word of an identifier: parseHTTPHeader gives parse, http
// and header; snake_case and kebab-case split at the separator. An
// identifier of two or more sub-words also gives its compound (parsehttpheader),
// so a task naming an identifier exactly matches it more strongly than its
// parts. Sub-words are lowercased and stemmed by stem; stop words and
// one-letter or purely numeric parts are dropped.
//
// Words joined by single hyphens (object-format, no-redact) also give the
// compound of their parts (objectformat), which is how code spells the same
// name (ObjectFormat, object_format).
func (s *termScanner) scan(src []byte, emit func(term []byte)) int {
	n := 0
	i := 0
	kebab := -1 // start of the current hyphen-joined run, or -1
	for i < len(src) {
		c := src[i]
		if !ascii.IsWordByte(c) {
			if c == '\\' {
				i += escapeLen(src[i:])
			} else {
				i++
			}
			continue
		}
		j := i
		for j < len(src) && ascii.IsWordByte(src[j]) {
			j++
		}
		n += s.word1(src[i:j], emit)
		joined := j+1 < len(src) && src[j] == '-' && ascii.IsWordByte(src[j+1])
		switch {
		case joined && kebab < 0:
			kebab = i
		case !joined && kebab >= 0:
			n += s.compound(src[kebab:j], emit)
			kebab = -1
		}
		i = j
	}
	return n
}

// escapeLen returns how many bytes of src, which starts with a
// backslash, to skip: a whole escape when src starts with one whose
// letter would otherwise join the next word ("\nusage" is usage, a man
// page's "\fBPATH\fP" is path), else 1.
func escapeLen(src []byte) int {
	if len(src) < 3 {
		return 1
	}
	switch {
	case (src[1] == 'n' || src[1] == 't' || src[1] == 'r') && ascii.IsWordByte(src[2]):
		return 2
	case src[1] == 'f' && (src[2] == 'B' || src[2] == 'I' || src[2] == 'R' || src[2] == 'P'):
		return 3 // roff's font escapes
	}
	return 1
}

// compound emits the lowercased letters and digits of a hyphen-joined run
// as one term, when it is long enough to be specific.
func (s *termScanner) compound(run []byte, emit func([]byte)) int {
	s.word = s.word[:0]
	for _, c := range run {
		switch {
		case ascii.IsUpper(c):
			s.word = append(s.word, c+'a'-'A')
		case ascii.IsLower(c) || ascii.IsDigit(c):
			s.word = append(s.word, c)
		}
	}
	if len(s.word) < 6 {
		return 0
	}
	if s.only == nil || s.only[prefixKey(s.word)] {
		emit(s.word)
	}
	return 1
}

// word1 splits one identifier (letters, digits, underscores) into sub-words.
func (s *termScanner) word1(w []byte, emit func([]byte)) int {
	n := 0
	// parts counts every sub-word, one-letter ones too: those are not
	// terms, but IDictionary, ILogger and getX are still compounds, and a
	// task that writes the name as one word ("the idictionary cast")
	// meets them only so.
	parts := 0
	s.word = s.word[:0]
	start := -1
	for k := 0; k <= len(w); k++ {
		boundary := k == len(w) || w[k] == '_'
		if !boundary && start >= 0 && k > start {
			prev, cur := w[k-1], w[k]
			switch {
			case ascii.IsLower(prev) && ascii.IsUpper(cur): // parseHTTP: e|H
				boundary = true
			case ascii.IsUpper(prev) && ascii.IsUpper(cur) && k+1 < len(w) && ascii.IsLower(w[k+1]) && !pluralAcronym(w, k+1): // HTTPHeader: P|He
				boundary = true
			case ascii.IsDigit(prev) && ascii.IsUpper(cur): // utf8Reader: 8|R
				boundary = true
			}
			if boundary {
				if s.part(w[start:k], emit) {
					n++
				}
				parts++
				start = k
				continue
			}
			if pluralAcronym(w, k) {
				// URLs, IDs, APIsFor: the acronym is the part, its
				// plural s is dropped, as stem drops it from a word.
				if s.part(w[start:k], emit) {
					n++
				}
				parts++
				start = -1
				continue
			}
		}
		if boundary {
			if start >= 0 && k > start {
				if s.part(w[start:k], emit) {
					n++
				}
				parts++
			}
			start = -1
			continue
		}
		if start < 0 {
			start = k
		}
	}
	if parts >= 2 && len(s.word) >= 4 {
		if s.only == nil || s.only[prefixKey(s.word)] {
			emit(s.word)
		}
		n++
	}
	return n
}

// pluralAcronym reports whether w[k] is the s of a plural acronym: a
// lowercase s after two capitals, ending the word or a part of it (URLs,
// IDsByName). Split by case alone, URLs would give "UR" and "Ls", and a
// task's "URLs" would never meet the code's url.
func pluralAcronym(w []byte, k int) bool {
	return k >= 2 && w[k] == 's' && ascii.IsUpper(w[k-1]) && ascii.IsUpper(w[k-2]) &&
		(k+1 == len(w) || !ascii.IsLower(w[k+1]))
}

// part emits one sub-word if it is a term, and appends it to the compound.
// It reports whether the sub-word counts toward the text's length: every
// part of two or more characters that is not a number does, stop words
// included, so that the length does not depend on the only filter.
func (s *termScanner) part(p []byte, emit func([]byte)) bool {
	s.buf = s.buf[:0]
	for _, c := range p {
		if ascii.IsUpper(c) {
			c += 'a' - 'A'
		}
		s.buf = append(s.buf, c)
	}
	s.word = append(s.word, s.buf...)
	if len(s.buf) < 2 || allDigits(s.buf) {
		return false
	}
	if s.only != nil && !s.only[prefixKey(s.buf)] {
		return true
	}
	t := stem(s.buf)
	if !isStopWord(t) || s.keep[string(t)] {
		emit(t)
	}
	return true
}

// terms returns the terms of text as strings, in order, with repeats;
// keep holds stop words to keep as terms (flagWords), or is nil.
func terms(text string, keep map[string]bool) []string {
	s := termScanner{keep: keep}
	var out []string
	s.scan([]byte(text), func(t []byte) { out = append(out, string(t)) })
	return out
}

// stem removes common English inflections so that "retries", "retry" and
// "retried" meet, and "headers" meets "header". It works in place on a
// lowercased word and returns the stem. It is deliberately tiny: the same
// function runs on tasks and on code, so it only has to be consistent.
// The spellings it leaves apart by a final e (handling: handl, handle:
// handle) meet through the query's variants, at a lower weight (variant).
func stem(w []byte) []byte {
	n := len(w)
	switch {
	case n > 4 && hasSuffix(w, "ies"):
		w = append(w[:n-3], 'y')
	case n > 4 && hasSuffix(w, "ied"):
		w = append(w[:n-3], 'y')
	case n > 5 && hasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && hasSuffix(w, "ed") && !hasSuffix(w, "eed"):
		w = w[:n-2]
	case n > 4 && (hasSuffix(w, "sses") || hasSuffix(w, "xes") || hasSuffix(w, "ches") || hasSuffix(w, "shes")):
		w = w[:n-2]
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		w = w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, suf string) bool {
	return len(w) >= len(suf) && string(w[len(w)-len(suf):]) == suf
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !ascii.IsDigit(c) {
			return false
		}
	}
	return true
}

// isStopWord reports whether a stemmed term carries no meaning for ranking:
// English function words and the keywords every language shares. Words such
// as "error" or "file" are not stop words: inverse document frequency
// already weighs them down where they are common.
func isStopWord(t []byte) bool {
	switch string(t) {
	case "the", "an", "and", "or", "of", "to", "in", "is", "it", "for", "on", "with",
		"as", "by", "be", "this", "that", "from", "at", "are", "were", "was", "not", "no",
		"if", "else", "we", "you", "can", "do", "doe", "but", "so", "all", "its", "into",
		"when", "which", "than", "then", "also", "there", "these", "those", "has", "have",
		"had", "been", "will", "would", "should", "could", "may", "our", "your", "they",
		"them", "their", "use", "us", "out", "up", "about", "any", "some", "more", "most",
		"only", "just", "other", "such", "one", "two", "now", "how", "what", "why", "who",
		"where", "instead", "via", "make", "add", "fix", "remove", "update", "change",
		"func", "function", "return", "var", "let", "const", "def", "self", "nil", "null",
		"none", "true", "false", "import", "package", "elif",
		"try", "catch", "except", "finally", "throw", "raise", "new",
		"signed", "off", "co", "author", "www", "com",
		// What an apostrophe leaves of a contraction: doesn't gives
		// doesn and t, we'll gives we and ll.
		"don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "hasn", "haven",
		"hadn", "shouldn", "wouldn", "couldn", "mustn", "needn", "ll", "ve":
		return true
	}
	return false
}
