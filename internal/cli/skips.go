package cli

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// Reporting the files select could not use.
//
// With -v every file the index or the selection left out is listed, with
// its reason. Without it, only the skips that matter: a file left out for
// a problem rather than by design (it could not be read, is not UTF-8, or
// is over the size limit; not an ignored, vendored or generated file)
// whose path the task names or shares a word with, so that it would have
// ranked. Its content is unknown, so its path is all there is to judge
// by: the best file for "retry on 503 loses the request body" is likely
// retry/retry.go, and if it cannot be read, the user must hear of it.

// problemSkip reports whether a skip reason is a problem to report, and
// what to do about it.
func problemSkip(reason string) (hint string, ok bool) {
	switch reason {
	case index.SkipUnreadable:
		return "check its permissions", true
	case index.SkipNotUTF8:
		return "", true // the detail says how to convert it
	case index.SkipTooLarge:
		return "it is over the file size limit (raise it with -max-file-size BYTES)", true
	}
	return "", false
}

// reportSelectSkips writes the skips on stderr: all of them (as -v lines) when
// verbose, else those that matter for task.
func reportSelectSkips(e *env, task string, skips []index.Skip, verbose bool) {
	words := pathWords(task)
	lower := strings.ToLower(task)
	for _, s := range skips {
		line := fmt.Sprintf("%s: %s", slicer.QuotePath(s.Path), s.Reason)
		if s.Detail != "" {
			line += " (" + s.Detail + ")"
		}
		if verbose {
			fmt.Fprintf(e.stderr, "ctxtrim: skipped %s\n", line)
			continue
		}
		hint, problem := problemSkip(s.Reason)
		if !problem || !pathMatters(s.Path, lower, words) {
			continue
		}
		msg := fmt.Sprintf("ctxtrim: %s: left out: %s", slicer.QuotePath(s.Path), s.Reason)
		if s.Detail != "" {
			msg += " (" + s.Detail + ")"
		}
		msg += ", though the task points at it"
		if hint != "" {
			msg += "; " + hint
		}
		fmt.Fprintln(e.stderr, msg)
	}
}

// pathMatters reports whether the task (lowered, and as words) names p,
// its file name, or a word of its name; or, for code outside test data, a
// word of its directories.
func pathMatters(p, lowerTask string, taskWords map[string]bool) bool {
	lp := strings.ToLower(p)
	base := path.Base(lp)
	if strings.Contains(lowerTask, lp) || strings.Contains(lowerTask, base) {
		return true
	}
	// A word of its own name always counts; a word of its directories
	// only for code, which ranks with its package: a task about the
	// budget points at budget/retry.go, not at budget/tables/x.ranks or
	// a fixture under budget/testdata (this repository's README command
	// reported three such files).
	dir, name := path.Split(p)
	if sharesWord(strings.TrimSuffix(name, path.Ext(name)), taskWords) {
		return true
	}
	return index.DetectLang(p, nil) != "" && !index.InFixtureDir(p) && sharesWord(dir, taskWords)
}

// sharesWord reports whether one of text's words (pathWords) is in words.
func sharesWord(text string, words map[string]bool) bool {
	for w := range pathWords(text) {
		if words[w] {
			return true
		}
	}
	return false
}

// minPathWord is the shortest word that counts in pathMatters: shorter
// ones ("a", "io", "db") match too much by chance.
const minPathWord = 3

// pathWords splits text into lowered words at anything but letters and
// digits and at lower-to-upper case changes (parseHTTPHeader → parse,
// http, header), keeping words of minPathWord letters or more that are not
// stop words.
func pathWords(text string) map[string]bool {
	words := map[string]bool{}
	var cur []rune
	flush := func() {
		if w := strings.ToLower(string(cur)); len(w) >= minPathWord && !isStopWord(w) {
			words[w] = true
		}
		cur = cur[:0]
	}
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// isStopWord reports English words too common in tasks to point at a
// file.
func isStopWord(w string) bool {
	switch w {
	case "the", "and", "for", "with", "this", "that", "from", "into", "when", "not", "are", "was",
		"but", "its", "fix", "add", "use", "all", "any", "can", "has", "have", "should", "does",
		"after", "before":
		return true
	}
	return false
}
