package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ctxtrim/ctxtrim/budget"
)

// Configuration files, read in this order; later files override earlier
// ones, and flags override both:
//
//  1. the user file, os.UserConfigDir()/ctxtrim/config.toml
//     ($XDG_CONFIG_HOME/ctxtrim/config.toml or ~/.config/ctxtrim/config.toml
//     on Linux, ~/Library/Application Support/ctxtrim/config.toml on macOS);
//  2. .ctxtrim.toml at the root of the repository holding the working
//     directory (the nearest ancestor with a .git entry).
//
// Both are optional. The format:
//
//	model   = "claude-sonnet-4-5"  # default --model
//	reserve = 16000                # default --reserve (tokens kept for the output)
//	margin  = 2000                 # default --margin (tokens kept free for safety)
//
//	[models."my-llama"]            # add or override model-table rows
//	family = "llama"
//	window = 32768
//	max_output = 4096
//
//	[families.claude]              # override a tokenizer family
//	factor = 1.5
const (
	repoConfigName = ".ctxtrim.toml"
	userConfigPath = "ctxtrim/config.toml" // under os.UserConfigDir()
)

// tomlLineErr matches BurntSushi/toml's decode errors, which carry a line
// but are not ParseErrors.
var tomlLineErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// config is one configuration file, or several merged.
type config struct {
	Model            string `toml:"model"`
	Reserve          *int   `toml:"reserve"`
	Margin           *int   `toml:"margin"`
	budget.TableSpec        // [families] and [models] of one file

	specs     []budget.TableSpec // table overrides of the merged files, applied in order
	files     []string           // files that were read, in order
	modelFile string             // the file that set Model, for errors about it
}

// loadConfig reads the user file and the repository file for repoDir and
// merges them (repository wins). Missing files are not errors; malformed
// ones are, as "path:line:col: message".
func loadConfig(repoDir string) (*config, error) {
	var paths []string
	if dir, err := os.UserConfigDir(); err == nil {
		paths = append(paths, filepath.Join(dir, userConfigPath))
	}
	if root, ok := repoRoot(repoDir); ok {
		paths = append(paths, filepath.Join(root, repoConfigName))
	}
	merged := &config{}
	for _, p := range paths {
		c, err := readConfig(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		merged.merge(c)
		merged.files = append(merged.files, p)
		if c.Model != "" {
			merged.modelFile = p
		}
	}
	return merged, nil
}

// readConfig parses one configuration file. Unknown keys are errors, so
// that a typo does not silently fall back to a default.
func readConfig(path string) (*config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %s", path, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		// Type mismatches are plain errors: "toml: line 1 (last key
		// "reserve"): incompatible types: …".
		if m := tomlLineErr.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%s:%s: %s: %s", path, m[1], m[2], m[3])
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var keys []string
	for _, k := range md.Undecoded() {
		// [check] belongs to "ctxtrim check", which decodes and validates it.
		if k[0] != "check" {
			keys = append(keys, k.String())
		}
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		return nil, fmt.Errorf("%s: unknown key %s (known: model, reserve, margin, [models.NAME], [families.NAME], [check])", path, strings.Join(keys, ", "))
	}
	if c.Reserve != nil && *c.Reserve < 0 {
		return nil, fmt.Errorf("%s: reserve %d is negative", path, *c.Reserve)
	}
	if c.Margin != nil && *c.Margin < 0 {
		return nil, fmt.Errorf("%s: margin %d is negative", path, *c.Margin)
	}
	// Check the table part now, so that its errors name this file.
	if _, err := budget.DefaultTable().With(c.TableSpec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// merge applies o over c.
func (c *config) merge(o *config) {
	if o.Model != "" {
		c.Model = o.Model
	}
	if o.Reserve != nil {
		c.Reserve = o.Reserve
	}
	if o.Margin != nil {
		c.Margin = o.Margin
	}
	c.specs = append(c.specs, o.TableSpec)
}

// table returns the built-in model table with c's overrides applied.
func (c *config) table() (*budget.Table, error) {
	t := budget.DefaultTable()
	for i, s := range c.specs {
		var err error
		if t, err = t.With(s); err != nil {
			return nil, fmt.Errorf("%s: %w", c.files[i], err)
		}
	}
	return t, nil
}

// repoRoot returns the nearest ancestor of dir (dir included) holding a
// .git entry (a directory, or a file in linked worktrees and submodules).
func repoRoot(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}
