package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docsDir is the user reference, relative to this package.
const docsDir = "../../docs"

// helpBlock matches the help a docs page embeds: the line that introduces
// it, a blank line, then the help in a bare fenced block. A page whose
// introduction is not followed by such a block fails the test (see
// docsHelpBlocks), so a broken fence is never skipped.
var helpBlock = regexp.MustCompile("(?ms)^As `ctxtrim help ([^`]*)` prints them:\n\n```\n(.*?)^```$")

// helpIntro matches the introduction alone, to find introductions
// helpBlock could not pair with a block.
var helpIntro = regexp.MustCompile("(?m)^As `ctxtrim help ([^`]*)` prints them:")

// noDocsPage lists the commands whose help no docs page embeds, each with
// the reason. Every other command of the table has docs/NAME.md, holding
// its help.
var noDocsPage = map[string]string{
	"version": "two lines of help; README.md documents it",
}

// docBlock is one help text a docs page embeds.
type docBlock struct {
	page string // file name under docs/
	cmd  string // the COMMAND of "ctxtrim help COMMAND"
	text string // the block's contents, final newline included
	loc  [2]int // byte offsets of text in the page
}

// docsHelpBlocks returns the help blocks of every page under docs/.
func docsHelpBlocks(t *testing.T, dir string) []docBlock {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatalf("no pages in %s: the user reference is part of the repository and embeds each command's help", dir)
	}
	var blocks []docBlock
	for _, path := range pages {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		page := filepath.Base(path)
		found := helpBlock.FindAllSubmatchIndex(data, -1)
		if intros := helpIntro.FindAllIndex(data, -1); len(intros) != len(found) {
			t.Errorf("docs/%s: %d help introductions (\"As `ctxtrim help CMD` prints them:\") but %d of them are followed by a blank line and a ``` block; fix the fence", page, len(intros), len(found))
		}
		for _, m := range found {
			blocks = append(blocks, docBlock{
				page: page,
				cmd:  string(data[m[2]:m[3]]),
				text: string(data[m[4]:m[5]]),
				loc:  [2]int{m[4], m[5]},
			})
		}
	}
	return blocks
}

// TestDocsMatchHelp: every help text a docs page embeds is what "ctxtrim
// help CMD" prints, byte for byte, and every command but those in
// noDocsPage has a page, docs/CMD.md, that embeds it. With -update the
// blocks are rewritten from the help.
func TestDocsMatchHelp(t *testing.T) {
	dir, err := filepath.Abs(docsDir) // before isolateConfig changes directory
	if err != nil {
		t.Fatal(err)
	}
	isolateConfig(t) // help must not depend on the user's configuration
	blocks := docsHelpBlocks(t, dir)

	help := func(cmd string) (string, error) {
		var stdout, stderr bytes.Buffer
		if code := Run([]string{"help", cmd}, strings.NewReader(""), &stdout, &stderr); code != exitOK || stderr.Len() > 0 {
			return "", fmt.Errorf("ctxtrim help %s: exit %d, stderr %q", cmd, code, stderr.String())
		}
		return stdout.String(), nil
	}

	stale := map[string][]docBlock{} // by page
	for _, b := range blocks {
		got, err := help(b.cmd)
		if err != nil {
			t.Errorf("docs/%s embeds the help of %q: %v", b.page, b.cmd, err)
			continue
		}
		if diff := cmp.Diff(b.text, got); diff != "" {
			if *update {
				b.text = got
				stale[b.page] = append(stale[b.page], b)
				continue
			}
			t.Errorf("docs/%s: the help of %q differs from what ctxtrim help %s prints (-want docs +got help):\n%s"+
				"Regenerate the block: go test ./internal/cli -run TestDocsMatchHelp -update "+
				"(or paste the output of ctxtrim help %[2]s between its fences)",
				b.page, b.cmd, b.cmd, diff)
		}
	}
	for page, bs := range stale {
		path := filepath.Join(dir, page)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Last block first, so the offsets of the earlier ones hold.
		for _, b := range slices.Backward(bs) {
			data = slices.Concat(data[:b.loc[0]], []byte(b.text), data[b.loc[1]:])
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the help blocks of docs/%s", page)
	}

	for _, c := range commandTable() {
		if reason, ok := noDocsPage[c.name]; ok {
			if slices.ContainsFunc(blocks, func(b docBlock) bool { return b.cmd == c.name }) {
				t.Errorf("a docs page embeds the help of %q, which noDocsPage exempts (%s); drop it from noDocsPage", c.name, reason)
			}
			continue
		}
		page := c.name + ".md"
		if !slices.ContainsFunc(blocks, func(b docBlock) bool { return b.cmd == c.name && b.page == page }) {
			t.Errorf("docs/%s does not embed the help of %q; add \"As `ctxtrim help %[2]s` prints them:\", a blank line and a ``` block holding the output of ctxtrim help %[2]s", page, c.name)
		}
	}
	for name := range noDocsPage {
		if _, ok := lookup(name); !ok {
			t.Errorf("noDocsPage exempts %q, which is no command; drop it", name)
		}
	}
}
