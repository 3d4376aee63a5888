//go:build unix

package slicer

import "syscall"

// probeFile reports whether there is an entry other than a directory at
// rel (a slash path relative to root), without following a final symbolic
// link. It is FindFiles' inner loop, called thousands of times: a bare
// lstat(2) costs a third of os.Lstat, which builds a FileInfo and, for the
// usual missing file, a PathError.
func probeFile(root, rel string) bool {
	var st syscall.Stat_t
	if syscall.Lstat(root+"/"+rel, &st) != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT != syscall.S_IFDIR
}
