package index

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// This file holds the ignore rules: gitignore patterns from
// core.excludesFile, .git/info/exclude, .gitignore and .ctxtrimignore
// files, and their precedence.

// ignoreRule is one gitignore pattern and the file it came from.
type ignoreRule struct {
	p   gitignore.Pattern
	src string
}

// globalIgnores reads core.excludesFile and .git/info/exclude.
func (b *builder) globalIgnores() []ignoreRule {
	var rules []ignoreRule
	if f := b.excludesFile(); f != "" {
		rules = append(rules, readIgnoreFile(f, nil, "core.excludesFile "+f)...)
	}
	if b.commonDir != "" {
		rules = append(rules, readIgnoreFile(filepath.Join(b.commonDir, "info", "exclude"), nil, ".git/info/exclude")...)
	}
	return rules
}

// excludesFile locates core.excludesFile the way git does.
func (b *builder) excludesFile() string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configs []string
	if b.commonDir != "" {
		configs = append(configs, filepath.Join(b.commonDir, "config"))
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	for _, c := range configs {
		data, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		cfg := formatcfg.New()
		if err := formatcfg.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
			b.logf("read %s: %v", c, err)
			continue
		}
		if f := cfg.Section("core").Options.Get("excludesfile"); f != "" {
			if strings.HasPrefix(f, "~/") && home != "" {
				f = filepath.Join(home, f[2:])
			}
			return f
		}
	}
	if xdg != "" {
		return filepath.Join(xdg, "git", "ignore")
	}
	return ""
}

// readIgnoreFile parses a gitignore-syntax file whose patterns apply below
// domain. A missing file has no rules.
func readIgnoreFile(file string, domain []string, src string) []ignoreRule {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var rules []ignoreRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		rules = append(rules, ignoreRule{p: gitignore.ParsePattern(line, domain), src: src})
	}
	return rules
}

// match applies rules, last first as git does, and returns the source of
// the deciding rule when it excludes the path.
func match(rules []ignoreRule, comps []string, isDir bool) (excluded bool, src string) {
	for i := len(rules) - 1; i >= 0; i-- {
		switch rules[i].p.Match(comps, isDir) {
		case gitignore.Exclude:
			return true, rules[i].src
		case gitignore.Include:
			return false, ""
		}
	}
	return false, ""
}

// isIgnored reports whether git rules exclude this directory or one of its
// ancestors, computing lazily: directories with tracked files are walked
// anyway, and most never hold an untracked file.
func (d *dirState) isIgnored() (bool, string) {
	if d.ignored == 0 {
		d.ignored = 1
		if d.parent != nil {
			if ign, src := d.parent.isIgnored(); ign {
				d.ignored, d.ignSrc = 2, src
			} else if ign, src := match(d.parent.git, d.comps, true); ign {
				d.ignored, d.ignSrc = 2, src
			}
		}
	}
	return d.ignored == 2, d.ignSrc
}
