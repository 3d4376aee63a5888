package split

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// genFile is one file of a generated change: its old and new content
// ("" with exists false for an added or deleted file).
type genFile struct {
	path                 string
	old, new             string
	oldExists, newExists bool
}

var genDirs = []string{"cmd", "internal/store", "internal/store/sql", "pkg/api", "docs", "web/src"}

// genLine returns one line of code-like text; now and then a blank line.
func genLine(r *rand.Rand) string {
	words := []string{"if", "err", "!=", "nil", "{", "}", "return", "x", ":=", "fmt.Errorf(\"%w\",", "ctx,", "user.Name", "// note", "for", "range", "items", "日本", "🙂"}
	if r.IntN(8) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.Repeat("\t", r.IntN(3)))
	for range 1 + r.IntN(10) {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return strings.TrimRight(b.String(), " ")
}

func genContent(r *rand.Rand, lines int) string {
	var b strings.Builder
	for range lines {
		b.WriteString(genLine(r))
		b.WriteByte('\n')
	}
	return b.String()
}

// genEdit returns old with a few random insertions, deletions and
// replacements.
func genEdit(r *rand.Rand, old string) string {
	lines := strings.SplitAfter(old, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for range 1 + r.IntN(6) {
		i := r.IntN(len(lines) + 1)
		switch r.IntN(3) {
		case 0: // insert a block
			var block []string
			for range 1 + r.IntN(30) {
				block = append(block, genLine(r)+"\n")
			}
			lines = append(lines[:i], append(block, lines[i:]...)...)
		case 1: // delete a block
			j := min(len(lines), i+1+r.IntN(10))
			lines = append(lines[:i], lines[j:]...)
		default:
			if i < len(lines) {
				lines[i] = genLine(r) + " // changed\n"
			}
		}
	}
	return strings.Join(lines, "")
}

// genChange returns n files changed at random: mostly edits, some added
// and deleted files, a few big ones, tests next to sources.
func genChange(r *rand.Rand, n int) []genFile {
	var files []genFile
	for i := range n {
		dir := genDirs[r.IntN(len(genDirs))]
		name := fmt.Sprintf("%s/f%03d.go", dir, i)
		if r.IntN(4) == 0 && i > 0 {
			prev := files[len(files)-1].path
			name = strings.TrimSuffix(prev, ".go") + "_test.go"
		}
		size := 5 + r.IntN(80)
		if r.IntN(10) == 0 {
			size = 300 + r.IntN(600)
		}
		old := genContent(r, size)
		f := genFile{path: name, old: old, oldExists: true, newExists: true}
		switch r.IntN(8) {
		case 0:
			f.old, f.oldExists, f.new = "", false, old
		case 1:
			f.newExists = false
		default:
			f.new = genEdit(r, old)
		}
		if f.old == f.new && f.oldExists == f.newExists {
			f.new += "// end\n"
		}
		files = append(files, f)
	}
	return files
}

// unifiedDiff renders files as a git diff with go-git's encoder, through
// the patch adapter of patch_test.go.
func unifiedDiff(t testing.TB, files []genFile) string {
	t.Helper()
	var p patch
	for _, f := range files {
		var from, to *patchFile
		if f.oldExists {
			from = &patchFile{plumbing.ComputeHash(plumbing.BlobObject, []byte(f.old)), filemode.Regular, f.path}
		}
		if f.newExists {
			to = &patchFile{plumbing.ComputeHash(plumbing.BlobObject, []byte(f.new)), filemode.Regular, f.path}
		}
		p = append(p, newFilePatch(from, to, f.old, f.new))
	}
	text, err := unified(p)
	if err != nil {
		t.Fatal(err)
	}
	return text
}
