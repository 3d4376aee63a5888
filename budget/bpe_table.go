package budget

import (
	_ "embed" // the rank tables
	"fmt"
	"sync"

	"github.com/ctxtrim/ctxtrim/budget/internal/ranktable"
)

// The rank tables map a token's bytes to its rank (its token id). They are
// laid out at build time by internal/gentables from the ranks of
// github.com/pkoukk/tiktoken-go-loader (those the reference counter uses),
// checked in under tables/, and embedded as strings: a lookup reads the
// bytes it needs in place from the executable's read-only data, so a fresh
// process builds, decodes and copies nothing before counting (see package
// ranktable for the layout). TestRankTablesUpToDate fails when a table
// differs from what the generator writes, and TestRankTablesMatchLoader
// checks every token of every table against the loader's ranks.
//
//go:generate go run ./internal/gentables -dir tables cl100k_base o200k_base

var (
	//go:embed tables/cl100k_base.ranks
	cl100kRanks string
	//go:embed tables/o200k_base.ranks
	o200kRanks string
)

// tables opens the rank tables, one per encoding, on first use. This is the
// package's only package-level state: opening reads a header, the tables
// are immutable, and no caller can observe or change them other than
// through timing.
var tables = map[string]func() (*ranktable.Table, error){
	Cl100kBase: sync.OnceValues(func() (*ranktable.Table, error) { return openRanks(Cl100kBase, cl100kRanks) }),
	O200kBase:  sync.OnceValues(func() (*ranktable.Table, error) { return openRanks(O200kBase, o200kRanks) }),
}

func openRanks(encoding, data string) (*ranktable.Table, error) {
	t, err := ranktable.Open(data)
	if err != nil {
		return nil, fmt.Errorf("rank table of %s: %w (run go generate in budget/)", encoding, err)
	}
	return t, nil
}
