// Command gentables writes the rank tables that package budget embeds: for
// each encoding named on the command line, the layout of package ranktable
// built from github.com/pkoukk/tiktoken-go-loader's ranks (the ranks the
// reference counter uses), to DIR/ENCODING.ranks.
//
// It is run by go generate in budget/ (see bpe_table.go):
//
//	go run ./internal/gentables -dir tables cl100k_base o200k_base
//
// TestRankTablesUpToDate in package budget fails when a checked-in table
// differs from what this command writes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxtrim/ctxtrim/budget/internal/ranktable"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

func main() {
	dir := flag.String("dir", ".", "write the tables into `DIR`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gentables [-dir DIR] ENCODING...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, enc := range flag.Args() {
		if err := generate(*dir, enc); err != nil {
			fmt.Fprintf(os.Stderr, "gentables: %v\n", err)
			os.Exit(1)
		}
	}
}

// generate writes DIR/ENC.ranks atomically: a reader never sees a partial
// table.
func generate(dir, enc string) error {
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(enc + ".tiktoken")
	if err != nil {
		return fmt.Errorf("load ranks of %s: %w", enc, err)
	}
	table, err := ranktable.Build(ranks)
	if err != nil {
		return fmt.Errorf("build %s: %w", enc, err)
	}
	path := filepath.Join(dir, enc+".ranks")
	tmp, err := os.CreateTemp(dir, "."+enc+".ranks.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	if _, err := tmp.Write(table); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gentables: wrote %s (%d tokens, %d bytes)\n", path, len(ranks), len(table))
	return nil
}
