package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/check"
)

// Configuration files, read in this order; later files override earlier
// ones, and flags override both:
//
//  1. the user file, os.UserConfigDir()/ctxtrim/config.toml
//     ($XDG_CONFIG_HOME/ctxtrim/config.toml or ~/.config/ctxtrim/config.toml
//     on Linux, ~/Library/Application Support/ctxtrim/config.toml on macOS);
//  2. .ctxtrim.toml at the root of the repository holding the working
//     directory (the nearest ancestor with a .git entry), or the file
//     given by check's -config.
//
// Both are optional. Every command reads them through loadConfig, check's
// [check] section included. A user file that exists but cannot be read
// (permission denied, as for HOME=/root under another user; a path
// through a regular file) is not an error: as git does with its own, the
// command says so in one warning line (config.warnings) and goes on
// without it, for the user file is often outside the user's control (a
// shared HOME, a sandbox). A repository file that cannot be read, and a
// malformed file of either kind, remain errors. The format:
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
//
//	[check]                        # ctxtrim check (see check -h); a key set in
//	project_doc_max_bytes = 32768  # the repository file overrides the user
//	                               # file's, [[check.files]] rules add up
const (
	repoConfigName = ".ctxtrim.toml"
	userConfigPath = "ctxtrim/config.toml" // under os.UserConfigDir()
)

// tomlLineErr matches BurntSushi/toml's decode errors, which carry a line
// but are not ParseErrors.
var tomlLineErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// config is one configuration file, or several merged.
type config struct {
	Model            string       `toml:"model"`
	Reserve          *int         `toml:"reserve"`
	Margin           *int         `toml:"margin"`
	Check            check.Config `toml:"check"`
	budget.TableSpec              // [families] and [models] of one file

	specs     []budget.TableSpec // table overrides of the merged files, applied in order
	files     []string           // files that were read, in order
	modelFile string             // the file that set Model, for errors about it
	md        toml.MetaData      // of one file: which keys it sets
	// warnings are the files loadConfig went on without (an unreadable
	// user file), one line each, for the command to print on stderr
	// before its work.
	warnings []string
}

// checkKeys lists the keys of [check], for errors.
const checkKeys = "project_doc_max_bytes, project_doc_fallback_filenames, agents_max_tokens, no_defaults, review_budget, review_max_parts, files"

// loadConfig reads the user file and the repository file for repoDir and
// merges them (repository wins). repoFile, when set, is read instead of
// the repository's .ctxtrim.toml and must exist. Missing files are not
// errors; malformed ones are, as "path:line:col: message".
func loadConfig(repoDir, repoFile string) (*config, error) {
	var paths []string
	userFile := ""
	if dir, err := os.UserConfigDir(); err == nil {
		userFile = filepath.Join(dir, userConfigPath)
		paths = append(paths, userFile)
	}
	if repoFile == "" {
		if root, ok := repoRoot(repoDir); ok {
			paths = append(paths, filepath.Join(root, repoConfigName))
		}
	}
	merged := &config{}
	read := func(p string) error {
		c, err := readConfig(p)
		if err != nil {
			return err
		}
		merged.merge(c)
		merged.files = append(merged.files, p)
		if c.Model != "" {
			merged.modelFile = p
		}
		return nil
	}
	for _, p := range paths {
		err := read(p)
		var pe *fs.PathError
		switch {
		case err == nil, errors.Is(err, fs.ErrNotExist):
		case p == userFile && errors.As(err, &pe):
			// Opening or reading failed (a parse error is no PathError).
			merged.warnings = append(merged.warnings, fmt.Sprintf("%s: %v; going on without the user configuration (check its permissions, or set XDG_CONFIG_HOME)", p, pe.Err))
		default:
			return nil, err
		}
	}
	if repoFile != "" {
		if err := read(repoFile); err != nil {
			return nil, fmt.Errorf("read config %s: %w", repoFile, err)
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
	c := config{}
	md, err := toml.Decode(string(data), &c)
	c.md = md
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
	var unknown, unknownCheck []toml.Key
	for _, k := range md.Undecoded() {
		if k[0] == "check" {
			unknownCheck = append(unknownCheck, k)
		} else {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		keys := make([]string, len(unknown))
		for i, k := range unknown {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("%s: unknown key %s (known: model, reserve, margin, [models.NAME], [families.NAME], [check])", keyPos(path, data, unknown[0]), strings.Join(keys, ", "))
	}
	if len(unknownCheck) > 0 {
		// A typo under [check] must never silently disable a budget.
		k := unknownCheck[0]
		return nil, fmt.Errorf("%s: unknown key %q (known in [check]: %s)", keyPos(path, data, k), k.String(), checkKeys)
	}
	if err := c.Check.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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
	// [check]: each key the later file sets wins; rules add up (a rule
	// with an earlier rule's glob replaces it, see check.Config.Rules).
	set := func(key string) bool { return o.md.IsDefined("check", key) }
	if set("project_doc_max_bytes") {
		c.Check.ProjectDocMaxBytes = o.Check.ProjectDocMaxBytes
	}
	if set("project_doc_fallback_filenames") {
		c.Check.ProjectDocFallbackFilenames = o.Check.ProjectDocFallbackFilenames
	}
	if set("agents_max_tokens") {
		c.Check.AgentsMaxTokens = o.Check.AgentsMaxTokens
	}
	if set("no_defaults") {
		c.Check.NoDefaults = o.Check.NoDefaults
	}
	if set("review_budget") {
		c.Check.ReviewBudget = o.Check.ReviewBudget
	}
	if set("review_max_parts") {
		c.Check.ReviewMaxParts = o.Check.ReviewMaxParts
	}
	c.Check.Files = append(c.Check.Files, o.Check.Files...)
}

// keyPos returns "path:line:col" of key's definition in the TOML text
// data, or path when it cannot be found. BurntSushi/toml keeps no
// positions for keys it did not decode, so the text is scanned: table
// headers ([a.b], [[a.b]]) and "name =" lines, bare or quoted names.
func keyPos(path string, data []byte, key toml.Key) string {
	var table []string
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "[") {
			h := strings.Trim(strings.SplitN(trimmed, "#", 2)[0], "[] \t")
			table = nil
			for _, part := range strings.Split(h, ".") {
				table = append(table, strings.Trim(strings.TrimSpace(part), `"'`))
			}
			continue
		}
		name, _, ok := strings.Cut(trimmed, "=")
		if !ok {
			continue
		}
		full := append(append([]string{}, table...), strings.Trim(strings.TrimSpace(name), `"'`))
		if slices.Equal(full, key) {
			return fmt.Sprintf("%s:%d:%d", path, i+1, 1+len(line)-len(strings.TrimLeft(line, " \t")))
		}
	}
	return path
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
// .git entry: check.RepoRoot, the one definition of the repository root.
func repoRoot(dir string) (string, bool) { return check.RepoRoot(dir) }
