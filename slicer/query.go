package slicer

import (
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
)

// query is a task prepared for ranking.
type query struct {
	terms   []string       // distinct terms, sorted
	termIdx map[string]int // term → index in terms
	qtf     []int          // occurrences of each term in the task
	m       mentions
	lits    []literal       // m's quotes, then its flags: see literals
	keep    map[string]bool // stop words written as flags, kept as terms
	title   []bool          // the term is in the task's first line
	word    []bool          // the term is a word of the first line, not a compound
	ident   []bool          // the term is an identifier the first line writes as code
	weight  []float64       // 1, or variantWeight for a spelling variant the task does not write
	block   []bool          // the term is only in the task's code blocks: codeBlockWeight in ranking files
	// completion: the task is about shell completion (it writes
	// "completion" or "autocomplete"), so completion scripts rank as the
	// source they then are (rankClass).
	completion bool
}

// completionRE finds a task about shell completion.
var completionRE = regexp.MustCompile(`(?i)\b(?:auto-?complet\w*|completions?)\b|\bcompdef\b`)

func newQuery(task string) *query {
	q := &query{termIdx: map[string]int{}, m: extractMentions(task)}
	counts := map[string]int{}
	// URLs name other repositories and hosts; their words (github, com,
	// blob, a commit hash) would match everything.
	lexical := mentionREs().url.ReplaceAllString(task, " ")
	first, _, _ := strings.Cut(strings.TrimSpace(lexical), "\n")
	titleMentions := extractMentions(first)
	q.lits = literals(q.m)
	q.lits = append(q.lits, siblingFlags(q.lits, titleMentions.Flags)...)
	q.keep = flagWords(lexical)
	q.completion = completionRE.MatchString(lexical)
	for _, t := range terms(lexical, q.keep) {
		counts[t]++
	}
	for _, t := range phraseCompounds(lexical) {
		counts[t]++
	}
	variantOf := map[string]string{} // variant → the task's term
	for t := range counts {
		if v := variant(t); v != "" && counts[v] == 0 {
			variantOf[v] = t
		}
	}
	for v := range variantOf {
		counts[v] = 1
	}
	// The terms written outside code blocks, from the text extractMentions
	// has already blanked them out of.
	outside := map[string]bool{}
	text := q.m.outside
	for _, t := range terms(text, q.keep) {
		outside[t] = true
	}
	for _, t := range phraseCompounds(text) {
		outside[t] = true
	}
	for v, t := range variantOf {
		outside[v] = outside[t]
	}
	for t := range counts {
		q.terms = append(q.terms, t)
	}
	sort.Strings(q.terms)
	q.qtf = make([]int, len(q.terms))
	q.weight = make([]float64, len(q.terms))
	q.block = make([]bool, len(q.terms))
	for i, t := range q.terms {
		q.block[i] = !outside[t]
		q.termIdx[t] = i
		q.qtf[i] = counts[t]
		q.weight[i] = 1
		if variantOf[t] != "" {
			q.weight[i] = variantWeight
		}
	}
	q.title = make([]bool, len(q.terms))
	q.word = make([]bool, len(q.terms))
	for _, t := range terms(first, q.keep) {
		if i, ok := q.termIdx[t]; ok {
			q.title[i], q.word[i] = true, true
		}
	}
	for _, t := range phraseCompounds(first) {
		if i, ok := q.termIdx[t]; ok {
			q.title[i] = true
		}
	}
	for v, t := range variantOf {
		q.title[q.termIdx[v]] = q.title[q.termIdx[t]]
	}
	q.ident = make([]bool, len(q.terms))
	for _, id := range titleMentions.Idents {
		if !id.CodeLike {
			continue
		}
		if i, ok := q.termIdx[compoundKey(id.Name)]; ok {
			q.ident[i] = true
		}
	}
	return q
}

// tfWeight is the weight of term k for how often the task says it,
// 1 + ln(count), times variantWeight for a spelling variant: in ranking
// files and a file's definitions alike.
func (q *query) tfWeight(k int) float64 { return (1 + math.Log(float64(q.qtf[k]))) * q.weight[k] }

// variant returns the other spelling of a term that stem leaves apart, or
// "". stem cuts -ing and -ed without restoring an e and keeps a final e
// otherwise, so "handling" and "handled" give handl while "handle" and
// "handles" give handle: a term ending in e has the variant without it,
// a word ending in a consonant the one with it. Stemming both alike
// instead (dropping every final e, or restoring it) conflates more than
// the task says: "named" meets every name.
func variant(t string) string {
	n := len(t)
	switch {
	case n >= 5 && t[n-1] == 'e' && t[n-2] != 'e':
		return t[:n-1]
	case n >= 4 && isAlpha(t) && !strings.ContainsRune("aeiouy", rune(t[n-1])):
		return t + "e"
	}
	return ""
}

// compoundKey is an identifier as its compound term spells it, lowercased
// and without underscores (HasEncodedObject, has_encoded_object:
// hasencodedobject), for matching a written identifier to terms and to
// other identifiers.
func compoundKey(id string) string { return strings.ReplaceAll(strings.ToLower(id), "_", "") }

// flagWords returns the stop words the task writes as a command-line
// flag: in "log --all" or "--no-verify", "all" and "no" name an option
// (NewCommitAllIter, NoVerify), not English. Nil when there are none.
func flagWords(task string) map[string]bool {
	var keep map[string]bool
	for _, m := range mentionREs().flag.FindAllStringSubmatch(task, -1) {
		for _, w := range strings.Split(strings.ToLower(m[1]), "-") {
			if t := string(stem([]byte(w))); isStopWord([]byte(t)) {
				if keep == nil {
					keep = map[string]bool{}
				}
				keep[t] = true
			}
		}
	}
	return keep
}

// phraseCompounds returns the compounds of adjacent words of the task:
// "request body" gives requestbody, which is how code spells the same thing
// (RequestBody, request_body), so a task in prose can match an identifier
// exactly. Only words of three letters or more that are not stop words
// pair, and only within a run of plain words.
func phraseCompounds(task string) []string {
	var out []string
	prev := ""
	word := func(w string) {
		lw := strings.ToLower(w)
		if len(lw) < 3 || isStopWord([]byte(lw)) || !isAlpha(lw) {
			prev = ""
			return
		}
		if prev != "" {
			out = append(out, prev+lw)
		}
		prev = lw
	}
	start := -1
	for i := 0; i <= len(task); i++ {
		if i < len(task) && (ascii.IsLetter(task[i]) || ascii.IsDigit(task[i])) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			word(task[start:i])
			start = -1
		}
		if i < len(task) && task[i] != ' ' {
			prev = "" // punctuation ends the phrase
		}
	}
	return out
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if !ascii.IsLower(s[i]) {
			return false
		}
	}
	return true
}
