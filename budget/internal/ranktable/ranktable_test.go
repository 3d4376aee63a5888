package ranktable

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// testRanks returns a synthetic encoding: the 256 bytes, then n tokens of
// 2 to 40 bytes drawn from a small alphabet (so that many strings near a
// token are not tokens), with no duplicates.
func testRanks(n int, seed uint64) map[string]int {
	ranks := map[string]int{}
	for b := range 256 {
		ranks[string([]byte{byte(b)})] = len(ranks)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	const alphabet = "ab \x00\xff\n"
	for len(ranks) < 256+n {
		var sb strings.Builder
		for range 2 + rng.IntN(39) {
			sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		if _, ok := ranks[sb.String()]; !ok {
			ranks[sb.String()] = len(ranks)
		}
	}
	return ranks
}

func openBuilt(t testing.TB, ranks map[string]int) *Table {
	t.Helper()
	data, err := Build(ranks)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Open(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestLookups checks every token of a synthetic table and the strings next
// to each (one byte more, one less, one changed) against the map it was
// built from, through Rank and through Key/Slot/Find/FindAt as a batched
// lookup uses them.
func TestLookups(t *testing.T) {
	ranks := testRanks(5000, 1)
	tab := openBuilt(t, ranks)
	if tab.Len() != len(ranks) {
		t.Fatalf("Len() = %d, want %d", tab.Len(), len(ranks))
	}
	check := func(s string) {
		want, wantOK := ranks[s]
		if got, ok := tab.Rank(s); ok != wantOK || ok && got != want {
			t.Fatalf("Rank(%q) = %d, %v; want %d, %v", s, got, ok, want, wantOK)
		}
		if len(s) < 1 || len(s) > tab.MaxLen() {
			return
		}
		key, home := tab.Key(s)
		var got int
		var ok bool
		if tab.Slot(home) == key {
			got, ok = tab.FindAt(s, key, home)
		} else {
			got, ok = tab.Find(s, key, home)
		}
		if ok != wantOK || ok && got != want {
			t.Fatalf("Find(%q) = %d, %v; want %d, %v", s, got, ok, want, wantOK)
		}
	}
	maxLen := 0
	for tok, r := range ranks {
		if got := tab.Token(r); got != tok {
			t.Fatalf("Token(%d) = %q, want %q", r, got, tok)
		}
		maxLen = max(maxLen, len(tok))
		check(tok)
		check(tok + "a")
		check(tok[:len(tok)-1])
		check(tok[1:])
		for i := range len(tok) {
			check(tok[:i] + "\x01" + tok[i+1:])
		}
	}
	if tab.MaxLen() != maxLen {
		t.Errorf("MaxLen() = %d, want %d", tab.MaxLen(), maxLen)
	}
	check("")
	check(strings.Repeat("a", maxLen+1))
}

// FuzzRank checks Rank against the map on arbitrary strings.
func FuzzRank(f *testing.F) {
	ranks := testRanks(3000, 2)
	tab := openBuilt(f, ranks)
	for tok := range ranks {
		if len(tok) > 5 {
			f.Add(tok)
			break
		}
	}
	f.Add("ab ab")
	f.Fuzz(func(t *testing.T, s string) {
		want, wantOK := ranks[s]
		if got, ok := tab.Rank(s); ok != wantOK || ok && got != want {
			t.Fatalf("Rank(%q) = %d, %v; want %d, %v", s, got, ok, want, wantOK)
		}
	})
}

// TestShortKey checks the packing of short keys against a byte loop.
func TestShortKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		b := make([]byte, 1+rng.IntN(ShortMax))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		var want uint64
		for i := len(b) - 1; i >= 0; i-- {
			want = want<<8 | uint64(b[i])
		}
		want |= uint64(len(b)) << 56
		if got := shortKey(string(b)); got != want {
			t.Fatalf("shortKey(%q) = %#x, want %#x", b, got, want)
		}
		if !Short(want) {
			t.Fatalf("Short(shortKey(%q)) = false", b)
		}
	}
}

// TestHashBytesUsesEveryByte checks that changing any one byte of a long
// key, or its length, changes its hash (a hash that skipped bytes would
// still be correct, only slow: this is what keeps probes short).
func TestHashBytesUsesEveryByte(t *testing.T) {
	for n := ShortMax + 1; n <= 40; n++ {
		s := []byte(strings.Repeat("x", n))
		h := hashBytes(string(s))
		for i := range s {
			s[i] = 'y'
			if hashBytes(string(s)) == h {
				t.Errorf("hashBytes ignores byte %d of %d", i, n)
			}
			s[i] = 'x'
		}
		if hashBytes(string(s)+"x") == h {
			t.Errorf("hashBytes of %d and %d x's are equal", n, n+1)
		}
	}
}

// TestBuildDeterministic checks that the layout depends only on the ranks
// (map iteration order differs from call to call).
func TestBuildDeterministic(t *testing.T) {
	ranks := testRanks(2000, 5)
	a, err := Build(ranks)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b, err := Build(ranks)
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Fatal("two builds of the same ranks differ")
		}
	}
}

func TestBuildErrors(t *testing.T) {
	bytes := func() map[string]int { return testRanks(0, 0) }
	tests := []struct {
		name string
		edit func(map[string]int)
		want string
	}{
		{"too few", func(m map[string]int) { delete(m, "a") }, "at least the 256 single bytes"},
		{"gap", func(m map[string]int) { m["ab"] = 300 }, "outside 0..256"},
		{"negative", func(m map[string]int) { m["ab"] = -1 }, "outside"},
		{"twice", func(m map[string]int) { m["ab"] = 7 }, "rank 7 is given to"},
		{"missing byte", func(m map[string]int) { delete(m, "\x07"); m["ab"] = 7 }, "byte 0x07 is not a token"},
		{"empty", func(m map[string]int) { m[""] = 256 }, "empty token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := bytes()
			tc.edit(m)
			if _, err := Build(m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	good, err := Build(testRanks(100, 6))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	edit := func(f func(b []byte) []byte) string {
		b := append([]byte(nil), good...)
		return string(f(b))
	}
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "bad magic"},
		{"magic", edit(func(b []byte) []byte { b[0] = 'C'; return b }), "bad magic"},
		{"truncated", edit(func(b []byte) []byte { return b[:len(b)-1] }), "header says"},
		{"longer", edit(func(b []byte) []byte { return append(b, 0) }), "header says"},
		{"tokens", edit(func(b []byte) []byte { le.PutUint32(b[hdrTokens:], 10); return b }), "bad rank table header"},
		{"slots", edit(func(b []byte) []byte { le.PutUint32(b[hdrSlotBits:], 31); return b }), "bad rank table header"},
		{"more tokens", edit(func(b []byte) []byte { le.PutUint32(b[hdrTokens:], 400); return b }), "section 4"},
		{"section", edit(func(b []byte) []byte {
			le.PutUint32(b[hdrSections+4*secPair:], le.Uint32(b[hdrSections+4*secPair:])+align)
			return b
		}), "section"},
		{"offsets", edit(func(b []byte) []byte {
			offs := int(le.Uint32(b[hdrSections+4*secOffs:]))
			n := int(le.Uint32(b[hdrTokens:]))
			le.PutUint32(b[offs+4*n:], 1)
			return b
		}), "offsets end at 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Open(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Open(string(good)); err != nil {
		t.Errorf("Open(good) = %v", err)
	}
}

// FuzzOpen checks that Open never panics on arbitrary bytes: it either
// fails or returns a table whose header is consistent.
func FuzzOpen(f *testing.F) {
	good, err := Build(testRanks(50, 7))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(good))
	f.Add(string(good[:headerSize]))
	f.Add(Magic)
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := Open(s)
		if err != nil {
			return
		}
		if tab.Len() < 256 || tab.MaxLen() < 2 {
			t.Fatalf("Open accepted %d tokens, longest %d", tab.Len(), tab.MaxLen())
		}
		// The sections have their sizes: reading any entry of single
		// and pair is in bounds (contents are Build's to get right).
		_, _ = tab.Single(255), tab.Len()
		tab.Pair(255, 255)
	})
}

func BenchmarkRank(b *testing.B) {
	ranks := testRanks(100000, 8)
	tab := openBuilt(b, ranks)
	var keys []string
	for tok := range ranks {
		keys = append(keys, tok, tok+"b")
		if len(keys) >= 1<<14 {
			break
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		tab.Rank(keys[i&(len(keys)-1)])
		i++
	}
}
