package budget

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/google/go-cmp/cmp"
)

// testEncodings are the encodings the fast counter must match.
var testEncodings = []string{Cl100kBase, O200kBase}

// refCounters caches the reference counters: building tiktoken-go's maps
// takes a few hundred milliseconds per encoding.
var refCounters = map[string]func() (Counter, error){
	Cl100kBase: sync.OnceValues(func() (Counter, error) { return NewReferenceCounter(Cl100kBase) }),
	O200kBase:  sync.OnceValues(func() (Counter, error) { return NewReferenceCounter(O200kBase) }),
}

func counters(tb testing.TB, encoding string) (fast *bpeCounter, ref Counter) {
	tb.Helper()
	fast, err := newBPECounter(encoding)
	if err != nil {
		tb.Fatal(err)
	}
	ref, err = refCounters[encoding]()
	if err != nil {
		tb.Fatal(err)
	}
	return fast, ref
}

// Split patterns exactly as tiktoken-go compiles them.
var refPatterns = map[string]string{
	Cl100kBase: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	O200kBase: strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"),
}

// refRegexps are the compiled refPatterns.
var refRegexps = map[string]func() *regexp2.Regexp{
	Cl100kBase: sync.OnceValue(func() *regexp2.Regexp { return regexp2.MustCompile(refPatterns[Cl100kBase], regexp2.None) }),
	O200kBase:  sync.OnceValue(func() *regexp2.Regexp { return regexp2.MustCompile(refPatterns[O200kBase], regexp2.None) }),
}

// refPieces splits valid UTF-8 text with regexp2, as tiktoken-go does.
func refPieces(tb testing.TB, encoding, s string) []string {
	tb.Helper()
	re := refRegexps[encoding]()
	runes := []rune(s)
	var out []string
	m, err := re.FindRunesMatch(runes)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
	}
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func fastPieces(encoding, s string) []string {
	next := cl100kNext
	if encoding == O200kBase {
		next = o200kNext
	}
	var out []string
	for i := 0; i < len(s); {
		e := next(s, i)
		out = append(out, s[i:e])
		i = e
	}
	return out
}

// seedTexts are the seed corpus of the differential tests: the corners of
// the split patterns.
var seedTexts = []string{
	"",
	"hello world",
	"Hello, World! It's I'M you'RE we'Ve they'LL he'D she's don'T",
	"'s 'S 'll 'LL 'lL 're 'Re 've 'VE 'm 'M 'd 'D 't 'T 'x ''s",
	"   \n  \t\n\t\t\n \t \n",
	"\t\t\t\n\t\n",
	"line one\r\nline two\r\n\r\n  \r\n",
	"a  b   c    d\t\te\n\n\nf   ",
	"trailing spaces   ",
	"  leading",
	" \u00a0\u2003\u3000x\u00a0 \u2028y\u0085z",
	"1234567 12 3.14159 ١٢٣٤ ⅷ ½ 10,000",
	"中文文本测试，这是一个句子。日本語のテキスト、カタカナ。한국어 텍스트입니다.",
	"emoji 🙂🙃 👨‍👩‍👧‍👦 🇫🇷 ✨done✨",
	"combining e\u0301 a\u0308\u0301 \u0301alone x\u0301\u0302Y\u0303 ΑΒΓαβγ ǅungla ǈ",
	"ʰmodifier ʰʰa Aʰ ÀÉÎõü straße İstanbul ΣΊΣΥΦΟΣ",
	"invalid \xff\xfe bytes \xc3\x28 \xed\xa0\x80 \xf0\x28\x8c\x28",
	"<|endoftext|> and <|fim_prefix|><|endofprompt|>",
	"func main() {\n\tfmt.Println(\"hi\") // comment\n}\n",
	"path/to/file.go://x// a/b/ \n/\n//\n",
	"x=1;y=2;\r\n\r\n\r\n!!\n??\r\r\n",
	strings.Repeat("a", 300) + " " + strings.Repeat("ab", 200) + strings.Repeat(" ", 100),
	strings.Repeat("🙂", 50) + strings.Repeat("\u0301", 80),
	"$$$ ((( ))) ... --- ___ *** ### @@@ %%% ^^^ &&& ||| \\\\\\",
	"CamelCaseWord HTTPServer getHTTPResponseCode XMLHttpRequest ABCdef abcDEF",
	"don't DON'T Don'T o'clock rock'n'roll '' 'A 'a",
	"\u01c5\u01c6\u01c4 \u1fbc\u1f88 ʼn",
	" \n", "\n ", " ", "\n", "\r", "\r\n", "a", "'", "'s", " 's",
}

func TestPiecesMatchRegexp(t *testing.T) {
	for _, enc := range testEncodings {
		for _, s := range seedTexts {
			if !utf8.ValidString(s) {
				s = string([]rune(s))
			}
			want := refPieces(t, enc, s)
			got := fastPieces(enc, s)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s pieces of %q (-want +got):\n%s", enc, s, diff)
			}
		}
	}
}

func TestCountMatchesReference(t *testing.T) {
	for _, enc := range testEncodings {
		fast, ref := counters(t, enc)
		for _, s := range seedTexts {
			if got, want := fast.Count(s), ref.Count(s); got != want {
				t.Errorf("%s Count(%q) = %d, want %d", enc, s, got, want)
			}
		}
	}
}

func FuzzCountMatchesReference(f *testing.F) {
	for _, s := range seedTexts {
		f.Add(s)
	}
	type pair struct {
		fast *bpeCounter
		ref  Counter
	}
	var cs []pair
	for _, enc := range testEncodings {
		fast, ref := counters(f, enc)
		cs = append(cs, pair{fast, ref})
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, c := range cs {
			if got, want := c.fast.Count(s), c.ref.Count(s); got != want {
				v := s
				if !utf8.ValidString(v) {
					v = string([]rune(v))
				}
				t.Errorf("%s Count(%q) = %d, want %d\nfast pieces %q\nref pieces  %q", testEncodings[i], s, got, want,
					fastPieces(testEncodings[i], v), refPieces(t, testEncodings[i], v))
			}
		}
	})
}

// TestContractionCaseFolding checks the assumption of contraction(): the
// only runes that unicode.ToLower maps to a letter of a contraction (or to
// the apostrophe) are ASCII.
func TestContractionCaseFolding(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r < utf8.RuneSelf {
			continue
		}
		if l := unicode.ToLower(r); strings.ContainsRune("'strevmld", l) {
			t.Errorf("unicode.ToLower(%U) = %q: contraction() would miss it", r, l)
		}
	}
}

// TestClassFastPaths checks classOfRune (and the ASCII table) against
// classOfSlow for every rune.
func TestClassFastPaths(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := classOfSlow(r)
		got := classOfRune(r)
		if r < utf8.RuneSelf {
			got = asciiClass[r]
		}
		if got != want {
			t.Errorf("class(%U) = %b, want %b", r, got, want)
		}
	}
}

// update rewrites golden files; for testdata/tokens/counts.golden the counts
// come from the reference counter (tiktoken-go).
var update = flag.Bool("update", false, "rewrite golden files from the reference")

const (
	tokensDir    = "testdata/tokens"
	tokensGolden = "testdata/tokens/counts.golden"
)

// TestGoldenCounts checks the fast counter against counts recorded from the
// reference (go test -run TestGoldenCounts -update rewrites them), and the
// reference against the record, so an upgrade of tiktoken-go that changed
// counts would show here.
func TestGoldenCounts(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(tokensDir, "*.txt"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no texts in %s: %v", tokensDir, err)
	}
	sort.Strings(names)
	got := map[string]int{}
	ref := map[string]int{}
	for _, enc := range testEncodings {
		fast, r := counters(t, enc)
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			key := filepath.Base(name) + " " + enc
			got[key] = fast.Count(string(data))
			ref[key] = r.Count(string(data))
		}
	}
	if *update {
		var b strings.Builder
		b.WriteString("# Token counts of testdata/tokens/*.txt, recorded from the reference counter\n")
		b.WriteString("# (github.com/pkoukk/tiktoken-go EncodeOrdinary, offline ranks) by\n")
		b.WriteString("# go test ./budget -run TestGoldenCounts -update\n")
		keys := make([]string, 0, len(ref))
		for k := range ref {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %d\n", k, ref[k])
		}
		if err := os.WriteFile(tokensGolden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readGolden(t, tokensGolden)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fast counts (-golden +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, ref); diff != "" {
		t.Errorf("reference counts (-golden +reference):\n%s", diff)
	}
}

func readGolden(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run with -update to record it)", err)
	}
	defer f.Close()
	want := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fields := strings.Fields(l)
		if len(fields) != 3 {
			t.Fatalf("%s:%d: want \"file encoding count\", got %q", path, line, l)
		}
		n, err := strconv.Atoi(fields[2])
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		want[fields[0]+" "+fields[1]] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return want
}

// corpusFile is one text of a corpus.
type corpusFile struct {
	path string
	text string
}

// goRoot returns the root of the Go installation that runs the tests, as
// `go env GOROOT` tells (runtime.GOROOT is deprecated: it names the root
// the test binary was built with), skipping the test without one.
func goRoot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		tb.Skipf("no Go installation to read sources from: go env GOROOT: %v", err)
	}
	return string(bytes.TrimSpace(out))
}

// goSourceSample returns about maxBytes of files from $GOROOT/src: every
// file of at most maxFile bytes, thinned to an evenly spaced sample.
func goSourceSample(tb testing.TB, maxBytes, maxFile int) []corpusFile {
	tb.Helper()
	root := filepath.Join(goRoot(tb), "src")
	var all []string
	var total int64
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() <= int64(maxFile) {
			all = append(all, path)
			total += info.Size()
		}
		return nil
	})
	if err != nil || len(all) == 0 {
		tb.Skipf("no Go sources under %s: %v", root, err)
	}
	sort.Strings(all)
	step := max(1, int(total/int64(maxBytes)))
	var out []corpusFile
	for i := 0; i < len(all); i += step {
		data, err := os.ReadFile(all[i])
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, corpusFile{all[i], string(data)})
	}
	return out
}

// checkCorpus compares the fast counter, serially and cut at every safe
// boundary, with the reference over files, on all CPUs. It returns the
// number of bytes checked.
func checkCorpus(t *testing.T, enc string, files []corpusFile) int64 {
	fast, ref := counters(t, enc)
	var (
		mu      sync.Mutex
		bytes   int64
		bad     int
		next    = make(chan corpusFile)
		wg      sync.WaitGroup
		workers = runtime.GOMAXPROCS(0)
	)
	for range workers {
		wg.Go(func() {
			for f := range next {
				want := ref.Count(f.text)
				got := fast.countSerial(validUTF8(f.text))
				cut := fast.countParallel(validUTF8(f.text), 2, 1)
				mu.Lock()
				bytes += int64(len(f.text))
				if got != want || cut != want {
					bad++
					if bad <= 10 {
						t.Errorf("%s %s: Count = %d, cut at every safe boundary = %d, reference = %d%s",
							enc, f.path, got, cut, want, firstPieceDiff(t, enc, f.text))
					}
				}
				mu.Unlock()
			}
		})
	}
	var sent int64
	step := max(len(files)/10, 1)
	for i, f := range files {
		next <- f
		sent += int64(len(f.text))
		if testing.Verbose() && len(files) > 1000 && i%step == step-1 {
			t.Logf("%s: %d/%d files sent, %d bytes", enc, i+1, len(files), sent)
		}
	}
	close(next)
	wg.Wait()
	if bad > 0 {
		t.Errorf("%s: %d of %d files differ", enc, bad, len(files))
	}
	return bytes
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

// firstPieceDiff describes where the fast pieces first differ from
// regexp2's, if they do.
func firstPieceDiff(t *testing.T, enc, s string) string {
	s = validUTF8(s)
	want, got := refPieces(t, enc, s), fastPieces(enc, s)
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("\nfirst differing piece #%d: reference %q, fast %q", i, want[i], got[i])
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("\npieces: reference %d, fast %d", len(want), len(got))
	}
	return "\n(same pieces: the byte-pair merge differs)"
}

// TestCorpusSampleMatchesReference checks a ~1 MB sample of the Go standard
// library sources (scripts/check-tokenizer-corpus.sh runs all of it).
func TestCorpusSampleMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus sample skipped in -short mode")
	}
	files := goSourceSample(t, 1<<20, 64<<10)
	for _, enc := range testEncodings {
		n := checkCorpus(t, enc, files)
		t.Logf("%s: %d files, %d bytes equal", enc, len(files), n)
	}
}

// TestCorpusFull checks every file under the directories listed in
// $BUDGET_CORPUS (separated by the OS path-list separator); files ending in
// .gz are decompressed when they can be. It is run by
// scripts/check-tokenizer-corpus.sh.
func TestCorpusFull(t *testing.T) {
	dirs := os.Getenv("BUDGET_CORPUS")
	if dirs == "" {
		t.Skip("set BUDGET_CORPUS to directories to check (scripts/check-tokenizer-corpus.sh)")
	}
	maxFile := int64(8 << 20)
	if v := os.Getenv("BUDGET_CORPUS_MAX_FILE"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		maxFile = n
	}
	var files []corpusFile
	var skipped []string
	for _, dir := range filepath.SplitList(dirs) {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.Size() > maxFile {
				skipped = append(skipped, fmt.Sprintf("%s (%d bytes)", path, info.Size()))
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.HasSuffix(path, ".gz") {
				if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
					if plain, err := io.ReadAll(io.LimitReader(zr, maxFile)); err == nil {
						data = plain
					}
				}
			}
			files = append(files, corpusFile{path, string(data)})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range skipped {
		t.Logf("skipped, larger than BUDGET_CORPUS_MAX_FILE: %s", s)
	}
	encs := testEncodings
	if e := os.Getenv("BUDGET_CORPUS_ENCODINGS"); e != "" {
		encs = strings.Split(e, ",")
	}
	for _, enc := range encs {
		start := time.Now()
		n := checkCorpus(t, enc, files)
		t.Logf("%s: %d files, %d bytes compared in %v", enc, len(files), n, time.Since(start).Round(time.Millisecond))
	}
}

// TestSafeSplit checks the proof of safeSplit against the reference: cutting
// a text at any safe boundary never changes its count.
func TestSafeSplit(t *testing.T) {
	texts := append([]string{}, seedTexts...)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "'", "s", "1", " ", "  ", "\t", "\n", "\r\n", "\n\n", "/", "//", ".", "中", "\u0301", "\u00a0", "🙂", "ʰ", "\xff",
		"ll", "Re", "'RE", "42", "1234", "_", ",", "-", "\"", "{", "é", "ǅ", "٣", "x\u0301", "，", "。", "中文", "Ⅻ", "\u200b", "\xe4\xb8"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, enc := range testEncodings {
		fast, ref := counters(t, enc)
		for _, s := range texts {
			want := ref.Count(s)
			v := validUTF8(s)
			for p := safeSplit(v, 1); p < len(v); p = safeSplit(v, p+1) {
				if got := ref.Count(v[:p]) + ref.Count(v[p:]); got != want {
					t.Errorf("%s: cutting %q at %d gives %d tokens, want %d", enc, v, p, got, want)
				}
			}
			if got := fast.countParallel(v, 3, 1); got != want {
				t.Errorf("%s: countParallel(%q) = %d, want %d", enc, v, got, want)
			}
		}
	}
}

// TestMergeHeapMatchesScan checks the heap merge of long pieces against the
// quadratic scan that mirrors tiktoken.
func TestMergeHeapMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabets := []string{"ab", "abc ", "the quick brown fox", "\t ", "0123456789", "中文字", "\x00\xff\x80"}
	for _, enc := range testEncodings {
		tab, err := tables[enc]()
		if err != nil {
			t.Fatal(err)
		}
		for i := range 300 {
			a := alphabets[i%len(alphabets)]
			var b strings.Builder
			for range 1 + rng.IntN(400) {
				b.WriteByte(a[rng.IntN(len(a))])
			}
			s := b.String()
			if got, want := mergeCountHeap(tab, s), mergeCountScan(tab, s); got != want {
				t.Errorf("%s: mergeCountHeap(%q) = %d, mergeCountScan = %d", enc, s, got, want)
			}
		}
	}
}

// TestParallelCount checks that a long text counted in parallel (the
// default for texts of parallelMin bytes or more) matches the serial count.
func TestParallelCount(t *testing.T) {
	files := goSourceSample(t, 600<<10, 64<<10)
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.text)
	}
	s := validUTF8(b.String())
	if len(s) < parallelMin {
		t.Fatalf("sample of %d bytes is below parallelMin", len(s))
	}
	for _, enc := range testEncodings {
		fast, _ := counters(t, enc)
		want := fast.countSerial(s)
		for _, procs := range []int{2, 3, 8} {
			if got := fast.countParallel(s, procs, chunkSize); got != want {
				t.Errorf("%s: countParallel(procs=%d) = %d, serial = %d", enc, procs, got, want)
			}
		}
	}
}

func TestNewEncodingCounterUnknown(t *testing.T) {
	_, err := NewEncodingCounter("p50k_base")
	if err == nil || !strings.Contains(err.Error(), "o200k_base") {
		t.Fatalf("NewEncodingCounter(p50k_base) error = %v, want one listing the known encodings", err)
	}
}

// TestPiecesRandom compares the pieces with regexp2's on random strings
// over an alphabet that exercises every class of the split patterns: upper,
// lower, title-case, modifier and other letters, marks, digits, kinds of
// whitespace, apostrophes and contraction letters, punctuation, '/'.
func TestPiecesRandom(t *testing.T) {
	alphabet := []string{"a", "B", "'", "s", "L", "l", "D", "re", " ", "  ", "\t", "\n", "\r", "\r\n", "1", "٣",
		"中", "\u0301", "ʰ", "ǅ", "/", ".", "🙂", "\u00a0", "\u3000", "\u0085", "Σ", "ß"}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, enc := range testEncodings {
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(24) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			s := b.String()
			if diff := cmp.Diff(refPieces(t, enc, s), fastPieces(enc, s)); diff != "" {
				t.Fatalf("%s pieces of %q (-regexp2 +fast):\n%s", enc, s, diff)
			}
		}
	}
}

// TestMergeMemo checks that the memo returns mergeCount's answers, first
// and repeated, and stays within memoMax pieces.
func TestMergeMemo(t *testing.T) {
	tab, err := tables[O200kBase]()
	if err != nil {
		t.Fatal(err)
	}
	var mm mergeMemo
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 3 * memoMax {
		var b strings.Builder
		for range 2 + rng.IntN(30) {
			b.WriteString([]string{"a", "b", "中", "文", "ж", " "}[rng.IntN(6)])
		}
		s := b.String()
		if i%3 == 2 {
			s = "repeated 中文 piece"
		}
		if got, want := mm.count(tab, s), mergeCount(tab, s); got != want {
			t.Fatalf("memo count(%q) = %d, mergeCount = %d", s, got, want)
		}
	}
	if len(mm.m) > memoMax {
		t.Errorf("memo holds %d pieces, more than %d", len(mm.m), memoMax)
	}
}
