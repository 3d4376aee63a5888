//go:build !unix

package index

import (
	"os"
	"path/filepath"
)

// prober reports whether there is an entry other than a directory at a
// slash path relative to the work tree root, without following a final
// symbolic link.
type prober struct{ root string }

func newProber(root string) (*prober, error) { return &prober{root}, nil }

func (p *prober) exists(rel string) bool {
	fi, err := os.Lstat(filepath.Join(p.root, filepath.FromSlash(rel)))
	return err == nil && !fi.IsDir()
}

func (p *prober) close() {}
