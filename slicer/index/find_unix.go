//go:build unix

package index

import (
	"golang.org/x/sys/unix"
)

// prober reports whether there is an entry other than a directory at a
// slash path relative to the work tree root, without following a final
// symbolic link. It is FindFiles' inner loop, called thousands of times:
// fstatat(2) relative to an open root saves resolving the root's own path
// on each call, and a bare system call costs a third of os.Lstat, which
// builds a FileInfo and, for the usual missing file, a PathError.
type prober struct{ fd int }

func newProber(root string) (*prober, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &prober{fd}, nil
}

func (p *prober) exists(rel string) bool {
	var st unix.Stat_t
	if unix.Fstatat(p.fd, rel, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT != unix.S_IFDIR
}

func (p *prober) close() { unix.Close(p.fd) }
