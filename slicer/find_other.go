//go:build !unix

package slicer

import (
	"os"
	"path/filepath"
)

// probeFile reports whether there is an entry other than a directory at
// rel (a slash path relative to root), without following a final symbolic
// link.
func probeFile(root, rel string) bool {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && !fi.IsDir()
}
