package budget

import (
	"fmt"
	"strings"
	"sync"
	"testing"
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

// refPieces splits valid UTF-8 text with regexp2, as tiktoken-go does.
func refPieces(tb testing.TB, encoding, s string) []string {
	tb.Helper()
	re := regexp2.MustCompile(refPatterns[encoding], regexp2.None)
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

var _ = fmt.Sprint
