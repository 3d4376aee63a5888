package budget

import (
	"testing"

	"github.com/ctxtrim/ctxtrim/budget/internal/ranktable"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// embeddedRanks are the checked-in tables, by encoding.
var embeddedRanks = map[string]string{Cl100kBase: cl100kRanks, O200kBase: o200kRanks}

// loaderRanks returns the ranks of encoding as tiktoken-go-loader reads
// them for the reference counter.
func loaderRanks(t *testing.T, encoding string) map[string]int {
	t.Helper()
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(encoding + ".tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	return ranks
}

// TestRankTablesUpToDate checks that each checked-in table is what the
// generator (internal/gentables, run by go generate) writes today.
func TestRankTablesUpToDate(t *testing.T) {
	for _, enc := range testEncodings {
		want, err := ranktable.Build(loaderRanks(t, enc))
		if err != nil {
			t.Fatal(err)
		}
		if got := embeddedRanks[enc]; got != string(want) {
			t.Errorf("tables/%s.ranks (%d bytes) differs from a fresh build (%d bytes): run go generate ./budget", enc, len(got), len(want))
		}
	}
}

// TestRankTablesMatchLoader checks every lookup of the embedded tables
// against tiktoken-go-loader's ranks: every token has its rank, every rank
// its token, every pair of bytes is looked up, and strings one byte off a
// token (longer, shorter, changed) are found exactly when they are tokens.
func TestRankTablesMatchLoader(t *testing.T) {
	for _, enc := range testEncodings {
		ranks := loaderRanks(t, enc)
		tab, err := tables[enc]()
		if err != nil {
			t.Fatal(err)
		}
		if tab.Len() != len(ranks) {
			t.Errorf("%s: %d tokens, loader has %d", enc, tab.Len(), len(ranks))
		}
		bad := 0
		check := func(s string) {
			want, wantOK := ranks[s]
			if got, ok := tab.Rank(s); ok != wantOK || ok && got != want {
				if bad++; bad <= 10 {
					t.Errorf("%s: Rank(%q) = %d, %v; loader: %d, %v", enc, s, got, ok, want, wantOK)
				}
			}
		}
		for tok, r := range ranks {
			if got := tab.Token(r); got != tok {
				if bad++; bad <= 10 {
					t.Errorf("%s: Token(%d) = %q, loader: %q", enc, r, got, tok)
				}
			}
			check(tok)
			check(tok + " ")
			check(tok[:len(tok)-1])
			check(tok[1:])
			check(tok[:len(tok)/2] + "\x00" + tok[len(tok)/2+1:])
		}
		for ab := range 1 << 16 {
			check(string([]byte{byte(ab >> 8), byte(ab)}))
		}
		if bad > 0 {
			t.Errorf("%s: %d lookups differ from the loader's ranks", enc, bad)
		}
	}
}
