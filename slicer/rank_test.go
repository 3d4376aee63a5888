package slicer

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// rankTask ranks an in-memory index for task, without history.
func rankTask(t *testing.T, ix *index.Index, read func(string) ([]byte, error), task string) []ranked {
	t.Helper()
	q := newQuery(task)
	stats, err := scanContents(context.Background(), ix, q, 2, read)
	if err != nil {
		t.Fatal(err)
	}
	df, docs := docFreq(stats, len(q.terms))
	return rankFiles(&rankInput{ix: ix, q: q, lk: newLookup(ix), stats: stats, df: df, docs: docs, explain: true})
}

// TestRankingGolden is the ranking-quality golden: for each task, the rank
// of the file that answers it, and the mean reciprocal rank. A change that
// moves a rank shows up in the diff; go test -update accepts it.
func TestRankingGolden(t *testing.T) {
	ix, read := memIndex(t, goldenRepo)
	tasks := []struct{ task, target string }{
		{"retry on 503 loses the request body", "retry/retry.go"},
		{"ParseHTTPHeader keeps spaces around the value", "header/parse.go"},
		{"users report \"cache: key not found\" right after Put", "cache/cache.go"},
		{"load_settings crashes when the settings file is missing", "config/settings.py"},
		{"TestDoRewindsBody is flaky", "retry/retry_test.go"},
		{"header parsing should trim whitespace around the key", "header/parse.go"},
		{"the app entry point builds its cache too late", "cmd/app/main.go"},
		{"retry policy: make the maximum number of attempts configurable", "retry/retry.go"},
		{"Cache.Get on a nil map panics", "cache/cache.go"},
		{"fix retry/retry.go for servers that never recover", "retry/retry.go"},
	}
	var b strings.Builder
	b.WriteString("# task → target: rank (0 = not ranked)\n")
	sum := 0.0
	for _, tc := range tasks {
		rank := 0
		for k, r := range rankTask(t, ix, read, tc.task) {
			if ix.Files[r.file].Path == tc.target {
				rank = k + 1
				break
			}
		}
		if rank > 0 {
			sum += 1 / float64(rank)
		}
		fmt.Fprintf(&b, "%s → %s: %d\n", tc.task, tc.target, rank)
	}
	mrr := sum / float64(len(tasks))
	fmt.Fprintf(&b, "MRR %.3f\n", mrr)
	golden(t, filepath.Join("testdata", "select", "ranking.golden"), b.String())
	if mrr < 0.8 {
		t.Errorf("MRR = %.3f, want ≥ 0.8", mrr)
	}
}

// TestScoreFormulas states scores as formulas over the named constants.
func TestScoreFormulas(t *testing.T) {
	ix, read := memIndex(t, map[string]string{
		"pkg/alpha.go":      "package pkg\n\nfunc Alpha() {}\n",
		"pkg/alpha_test.go": "package pkg\n\nfunc TestAlpha() {}\n",
		"vendor/v/beta.go":  "package v\n\nfunc Beta() {}\n",
	})
	get := func(rk []ranked, p string) Signals {
		for _, r := range rk {
			if ix.Files[r.file].Path == p {
				r.signals.Why = nil
				return r.signals
			}
		}
		return Signals{}
	}
	approx := cmpopts.EquateApprox(0, 1e-9)
	t.Run("full path mention", func(t *testing.T) {
		rk := rankTask(t, ix, read, "see pkg/alpha.go")
		s := get(rk, "pkg/alpha.go")
		if diff := cmp.Diff(weightMention*mentionFullPath, s.Mention, approx); diff != "" {
			t.Errorf("Mention (-want +got):\n%s", diff)
		}
		// Its test gets pairShare of the source's explicit mention,
		// scaled by the test class, and none of the rest of its score.
		test := get(rk, "pkg/alpha_test.go")
		if diff := cmp.Diff(pairShare*s.Mention*classFactor(index.Test), test.Pair, approx); diff != "" {
			t.Errorf("test Pair (-want +got):\n%s", diff)
		}
	})
	t.Run("words lend no pairing", func(t *testing.T) {
		// Both files match "alpha" by their words; neither is named, so
		// neither lends the other anything.
		rk := rankTask(t, ix, read, "alpha")
		for _, p := range []string{"pkg/alpha.go", "pkg/alpha_test.go"} {
			s := get(rk, p)
			if s.Lexical == 0 {
				t.Fatalf("%s: no lexical score; the case tests nothing", p)
			}
			if s.Pair != 0 {
				t.Errorf("%s: Pair = %v, want 0", p, s.Pair)
			}
		}
	})
	t.Run("explicit mention ignores class", func(t *testing.T) {
		s := get(rankTask(t, ix, read, "vendor/v/beta.go is outdated"), "vendor/v/beta.go")
		if diff := cmp.Diff(weightMention*mentionFullPath, s.Mention, approx); diff != "" {
			t.Errorf("Mention (-want +got):\n%s", diff)
		}
	})
	t.Run("named is a path, file name or frame", func(t *testing.T) {
		// A path and a file name name the file; a symbol it defines
		// does not, so the file keeps its class when packed.
		for _, tc := range []struct {
			task, path string
			want       bool
		}{
			{"vendor/v/beta.go is outdated", "vendor/v/beta.go", true},
			{"alpha_test.go fails", "pkg/alpha_test.go", true},
			{"calling Alpha() twice", "pkg/alpha.go", false},
		} {
			got := false
			for _, r := range rankTask(t, ix, read, tc.task) {
				if ix.Files[r.file].Path == tc.path {
					got = r.named
				}
			}
			if got != tc.want {
				t.Errorf("%q: %s named = %v, want %v", tc.task, tc.path, got, tc.want)
			}
		}
	})
	t.Run("code-like symbol mention", func(t *testing.T) {
		s := get(rankTask(t, ix, read, "calling Alpha() twice"), "pkg/alpha.go")
		// One definer: mentionSymbol / sqrt(1); the file's stem also
		// equals the identifier: mentionStem / 1.
		if diff := cmp.Diff(weightMention*(mentionSymbol+mentionStem), s.Mention, approx); diff != "" {
			t.Errorf("Mention (-want +got):\n%s", diff)
		}
	})
	t.Run("lexical is normalized", func(t *testing.T) {
		rk := rankTask(t, ix, read, "alpha")
		best := 0.0
		for _, r := range rk {
			best = math.Max(best, r.signals.Lexical/r.signals.Class)
		}
		if diff := cmp.Diff(weightLexical, best, approx); diff != "" {
			t.Errorf("best Lexical/Class (-want +got):\n%s", diff)
		}
	})
}

func TestPairKey(t *testing.T) {
	tests := []struct {
		path, key string
		test      bool
	}{
		{"pkg/retry.go", "pkg/retry", false},
		{"pkg/retry_test.go", "pkg/retry", true},
		{"src/app.spec.ts", "src/app", true},
		{"src/app.test.js", "src/app", true},
		{"tests/test_models.py", "*/models", true},
		{"lib/test_models.py", "lib/models", true},
		{"src/test/java/FooTest.java", "*/foo", true},
	}
	for _, tc := range tests {
		key, test := pairKey(tc.path)
		if diff := cmp.Diff([2]any{tc.key, tc.test}, [2]any{key, test}); diff != "" {
			t.Errorf("pairKey(%s) (-want +got):\n%s", tc.path, diff)
		}
	}
}

// TestLiteralLines: a quote is found anywhere in a line; a flag's name
// only in quotes or after two dashes, where no name character follows.
func TestLiteralLines(t *testing.T) {
	tests := []struct {
		lit  literal
		line string
		want bool
	}{
		{literal{text: []byte("pre")}, `let prefix = 1;`, true}, // a quote is found anywhere
		{literal{text: []byte("pre"), flag: true}, `        "pre"`, true},
		{literal{text: []byte("pre"), flag: true}, `@click.option('pre')`, true},
		{literal{text: []byte("pre"), flag: true}, "/// --pre", true},
		{literal{text: []byte("pre"), flag: true}, `parser.add_argument("--pre", help="x")`, true},
		{literal{text: []byte("pre"), flag: true}, `args(["--pre=foo"])`, true},
		{literal{text: []byte("pre"), flag: true}, `"--pre-glob" and "prefix"`, false},
		{literal{text: []byte("pre"), flag: true}, `---pre`, false},
		{literal{text: []byte("pre"), flag: true}, `let pre = "pre-glob";`, false},
		{literal{text: []byte("pre"), flag: true}, `"pre' and --pre_x`, false},
		{literal{text: []byte("pre"), flag: true}, `x --pre-glob y --pre`, true}, // the second occurrence counts
	}
	for _, tc := range tests {
		// The line alone, and as the second line of three: lines
		// counts lines and reports a line that holds it twice once.
		var alone, within []int32
		if tc.want {
			alone, within = []int32{1}, []int32{2}
		}
		within = append(within, 3) // "y --pre --pre" holds either kind
		if got := tc.lit.lines([]byte(tc.line)); !slices.Equal(got, alone) {
			t.Errorf("%v in %q: lines %v, want %v", tc.lit, tc.line, got, alone)
		}
		src := "x\n" + tc.line + "\ny --pre --pre"
		if got := tc.lit.lines([]byte(src)); !slices.Equal(got, within) {
			t.Errorf("%v in %q: lines %v, want %v", tc.lit, src, got, within)
		}
	}
}

// FuzzLiteralLines checks that searching the whole text finds the lines
// that searching each line alone finds, in order, each once.
func FuzzLiteralLines(f *testing.F) {
	f.Add("pre", true, "a\n\"pre\"\n--pre-glob --pre\n")
	f.Add("x y", false, "x y\nx y x y\r\n\n")
	f.Fuzz(func(t *testing.T, text string, flag bool, src string) {
		if text == "" || strings.Contains(text, "\n") {
			return // extractMentions gives neither
		}
		lit := literal{text: []byte(text), flag: flag}
		var want []int32
		for k, line := range strings.Split(src, "\n") {
			if len(lit.lines([]byte(line))) > 0 {
				want = append(want, int32(k+1))
			}
		}
		if got := lit.lines([]byte(src)); !slices.Equal(got, want) {
			t.Fatalf("lines(%q) in %q = %v, line by line %v", text, src, got, want)
		}
	})
}

// TestFlagWords: a stop word written as a long flag (--all, --no-verify)
// is a term of the task and of the code, so that "log --all" reaches
// NewCommitAllIter; the same word in prose stays a stop word.
func TestFlagWords(t *testing.T) {
	for _, tc := range []struct {
		task string
		want []string // the stop words kept
	}{
		{"Ignore missing references on log --all", []string{"all"}},
		{"add `--no-verify` to commit (--all)", []string{"all", "no"}},
		{"fix all the things", nil},
		{"a--all b, --verbose", nil}, // inside a word; not a stop word
	} {
		q := newQuery(tc.task)
		var got []string
		for w := range q.keep {
			got = append(got, w)
		}
		if diff := cmp.Diff(tc.want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b }), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q: kept (-want +got):\n%s", tc.task, diff)
		}
		for _, w := range tc.want {
			if _, ok := q.termIdx[w]; !ok {
				t.Errorf("%q: %q is not a term (%v)", tc.task, w, q.terms)
			}
		}
	}
	ix, read := memIndex(t, map[string]string{
		// Alike but for All; a tie would put a.go first.
		"walk/a.go": "package walk\n\n// NewCommitOneIter walks every reference.\nfunc NewCommitOneIter() {}\n",
		"walk/b.go": "package walk\n\n// NewCommitAllIter walks every reference.\nfunc NewCommitAllIter() {}\n",
	})
	rk := rankTask(t, ix, read, "walk every reference on log --all")
	if len(rk) == 0 || ix.Files[rk[0].file].Path != "walk/b.go" {
		t.Errorf("log --all: first %v, want walk/b.go", rk)
	}
}

// TestTitleWeight: the words of a task's first line weigh more than the
// same words in its body, and a one-line task ranks as before.
func TestTitleWeight(t *testing.T) {
	q := newQuery("Retry drops the body\n\nSeen while reading the cache code.")
	for _, tc := range []struct {
		term  string
		title bool
	}{{"retry", true}, {"drop", true}, {"body", true}, {"cache", false}, {"code", false}} {
		i, ok := q.termIdx[tc.term]
		if !ok {
			t.Fatalf("%q is not a term (%v)", tc.term, q.terms)
		}
		if q.title[i] != tc.title {
			t.Errorf("%q: title %v, want %v", tc.term, q.title[i], tc.title)
		}
	}
	// Alike but for the word; a tie would put a.go first.
	ix, read := memIndex(t, map[string]string{
		"svc/a.go": "package svc\n\n// Alpha handles the request.\nfunc Alpha() {}\n",
		"svc/b.go": "package svc\n\n// Bravo handles the request.\nfunc Bravo() {}\n",
	})
	lexical := func(task string) map[string]float64 {
		out := map[string]float64{}
		for _, r := range rankTask(t, ix, read, task) {
			out[ix.Files[r.file].Path] = r.signals.Lexical
		}
		return out
	}
	got := lexical("bravo\n\nalpha")
	if got["svc/b.go"] <= got["svc/a.go"] {
		t.Errorf("title bravo, body alpha: lexical %v, want svc/b.go above svc/a.go", got)
	}
	got = lexical("alpha bravo")
	if got["svc/b.go"] != got["svc/a.go"] {
		t.Errorf("one line: lexical %v, want a tie", got)
	}
}

// TestVariant: the spelling variant joins what stem leaves apart, a final
// e, and nothing else.
func TestVariant(t *testing.T) {
	for _, tc := range []struct{ term, want string }{
		{"handle", "handl"}, // handle, handles
		{"handl", "handle"}, // handled, handling
		{"parse", "pars"},
		{"cache", "cach"},
		{"encod", "encode"},
		{"header", "headere"}, // no code says it: it matches nothing
		{"name", ""},          // too short: "nam" is no spelling of it
		{"free", ""},          // ee is not a dropped e
		{"retry", ""},         // ends in y
		{"value", "valu"},
		{"url", ""},
		{"http2", ""}, // not a word
		{"getx", "getxe"},
	} {
		if got := variant(tc.term); got != tc.want {
			t.Errorf("variant(%q) = %q, want %q", tc.term, got, tc.want)
		}
	}
}

// TestQueryVariants: a task's word brings its variant as a term of the
// title, at variantWeight, never as a word of its own (a word no file holds
// names something new), and a variant the task also writes keeps full
// weight.
func TestQueryVariants(t *testing.T) {
	q := newQuery("Fix handling of empty paths\n\nThe cache handles it.")
	for _, tc := range []struct {
		term   string
		weight float64
		title  bool
		word   bool
	}{
		{"handl", 1, true, true},
		{"handle", 1, false, false}, // "handles" in the body: the task's own term
		{"cache", 1, false, false},
		{"cach", variantWeight, false, false},
		{"empty", 1, true, true},
		{"path", 1, true, true},
		{"pathe", variantWeight, true, false},
	} {
		i, ok := q.termIdx[tc.term]
		if !ok {
			t.Fatalf("%q is not a term (%v)", tc.term, q.terms)
		}
		if q.weight[i] != tc.weight || q.title[i] != tc.title || q.word[i] != tc.word {
			t.Errorf("%q: weight %v title %v word %v, want %v %v %v", tc.term, q.weight[i], q.title[i], q.word[i], tc.weight, tc.title, tc.word)
		}
	}
	if k := q.termIdx["handle"]; q.tfWeight(k) != 1 {
		t.Errorf("tfWeight(handle) = %v, want 1", q.tfWeight(k))
	}
	if k := q.termIdx["cach"]; q.tfWeight(k) != variantWeight {
		t.Errorf("tfWeight(cach) = %v, want %v", q.tfWeight(k), variantWeight)
	}
}

// TestQueryCodeBlockTerms: a term only in the task's code blocks is marked
// for codeBlockWeight in ranking files, one the text also writes is not,
// and a spelling variant follows its term.
func TestQueryCodeBlockTerms(t *testing.T) {
	q := newQuery("Retries do not wait\n\nThe delay is zero.\n\n```go\nc := client.NewClient(opts)\nresp, err := c.Do(req)\nwaiting()\n```")
	for term, block := range map[string]bool{
		"retry": false, "wait": false, "delay": false,
		"client": true, "newclient": true, "resp": true, "req": true,
		"waite": false, // wait's variant: the text writes wait
	} {
		i, ok := q.termIdx[term]
		if !ok {
			t.Fatalf("%q is not a term (%v)", term, q.terms)
		}
		if q.block[i] != block {
			t.Errorf("%q: block %v, want %v", term, q.block[i], block)
		}
	}
}

// TestCodeBlockMention: a name the task writes only in a code block counts
// codeBlockWeight of what it counts in the text, and -explain says where
// it came from.
func TestCodeBlockMention(t *testing.T) {
	ix, read := memIndex(t, map[string]string{
		"client.go": "package client\n\n// NewClient returns a client.\nfunc NewClient() *Client { return &Client{} }\n\n// Client sends.\ntype Client struct{}\n",
		"other.go":  "package client\n\nfunc other() {}\n",
	})
	mention := func(task string) (float64, []string) {
		for _, r := range rankTask(t, ix, read, task) {
			if ix.Files[r.file].Path == "client.go" {
				return r.signals.Mention, r.signals.Why
			}
		}
		t.Fatalf("%q: client.go not ranked", task)
		return 0, nil
	}
	prose, proseWhy := mention("It hangs when NewClient is called twice")
	block, blockWhy := mention("It hangs when called twice\n\n```go\nc := NewClient()\n```")
	if prose == 0 || block >= prose || math.Abs(block-codeBlockWeight*prose) > 1e-9 {
		t.Errorf("mention in a block %.4f, in the text %.4f: want %v of it", block, prose, codeBlockWeight)
	}
	if !slices.Contains(proseWhy, "symbol NewClient") || !slices.Contains(blockWhy, "symbol NewClient (code block)") {
		t.Errorf("why: text %q, block %q", proseWhy, blockWhy)
	}
}
