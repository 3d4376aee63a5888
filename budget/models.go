package budget

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/ctxtrim/ctxtrim/internal/editdist"
)

// ErrUnknownModel is returned (wrapped) by Lookup, NewCounter and
// Table.Lookup when a model name matches no entry or alias. Check it with
// errors.Is.
var ErrUnknownModel = errors.New("unknown model")

// The built-in model table is models.toml. It is data: extend it by editing
// models.toml and running go generate, or override it at run time with
// Table.With. go generate writes it as Go (models_table.go, builtinSpec) so
// that a process builds the table from constants instead of parsing TOML
// on every start; TestBuiltinTableUpToDate checks that the two agree.
//
//go:generate go run ./internal/genmodels models.toml models_table.go

// Model is one row of the model table.
type Model struct {
	Name      string  // canonical name, e.g. "gpt-4o"
	Family    string  // tokenizer family, e.g. "openai", "claude", "gemini"
	Window    int     // context window in tokens, input and output together
	MaxOutput int     // largest output the model may produce, in tokens
	Encoding  string  // tiktoken encoding used to count for this model
	Factor    float64 // counts are the encoding's count × Factor, rounded up; 1 when exact
	Estimate  bool    // the model's own tokenizer is not Encoding: counts are estimates
	// SeparateOutput is true when Window limits the input alone and the
	// output has its own limit (Gemini), so no reserve is needed.
	SeparateOutput bool
	Aliases        []string // other names that select this row
	Source         string   // where the figures come from
}

// FamilySpec is a tokenizer family in the table's data format: the encoding
// its models are counted with and the safety factor applied to the count.
type FamilySpec struct {
	Encoding *string  `toml:"encoding"`
	Factor   *float64 `toml:"factor"`
	Estimate *bool    `toml:"estimate"`
	Why      *string  `toml:"why"`
	// SeparateOutput: the family's windows limit input only.
	SeparateOutput *bool `toml:"separate_output"`
}

// ModelSpec is a model in the table's data format. Nil fields are inherited:
// from the row being overridden, or from the model's family.
type ModelSpec struct {
	Family         *string  `toml:"family"`
	Window         *int     `toml:"window"`
	MaxOutput      *int     `toml:"max_output"`
	Encoding       *string  `toml:"encoding"`
	Factor         *float64 `toml:"factor"`
	Estimate       *bool    `toml:"estimate"`
	SeparateOutput *bool    `toml:"separate_output"`
	Aliases        []string `toml:"aliases"`
	Source         *string  `toml:"source"`
}

// TableSpec is the data format of models.toml and of the [families] and
// [models] sections of a configuration file.
type TableSpec struct {
	Families map[string]FamilySpec `toml:"families"`
	Models   map[string]ModelSpec  `toml:"models"`
}

// Family is a resolved tokenizer family.
type Family struct {
	Name           string
	Encoding       string
	Factor         float64
	Estimate       bool
	SeparateOutput bool
	Why            string // the justification of Factor
}

// Table is an immutable model table. Methods are safe for concurrent use.
type Table struct {
	famSpecs   map[string]FamilySpec // merged data, kept so that With can re-resolve
	modelSpecs map[string]ModelSpec
	families   map[string]Family
	models     []Model        // sorted by Name
	index      map[string]int // lower-case name or alias → models index
}

// Limits on table values; anything outside is a data error.
const (
	maxWindow = 100_000_000 // no model comes near 100M tokens; larger is a typo
	maxFactor = 4.0         // a factor above 4 means the encoding is the wrong one
)

var defaultTable = sync.OnceValues(func() (*Table, error) {
	t, err := (&Table{}).With(builtinSpec())
	if err != nil {
		return nil, fmt.Errorf("models.toml: %w", err)
	}
	return t, nil
})

// ptr returns a pointer to v: builtinSpec's optional fields.
func ptr[T any](v T) *T { return &v }

// DefaultTable returns the built-in model table (models.toml). The table is
// parsed once and never modified; With returns modified copies.
func DefaultTable() *Table {
	t, err := defaultTable()
	if err != nil {
		// models.toml is embedded and checked by TestDefaultTable; a
		// failure here is a build defect, not a run-time condition.
		panic("budget: built-in " + err.Error())
	}
	return t
}

// ParseTable parses a table in the models.toml format on top of base (nil
// for an empty table). name is used in error messages.
func ParseTable(base *Table, name string, data []byte) (*Table, error) {
	var spec TableSpec
	if _, err := toml.Decode(string(data), &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if base == nil {
		base = &Table{}
	}
	return base.With(spec)
}

// With returns a copy of t with spec applied: families and models in spec
// are added, or override the fields they set on existing entries (models
// matched by canonical name or alias). A family override applies to every
// model of that family that does not set the field itself. t is not
// modified.
func (t *Table) With(spec TableSpec) (*Table, error) {
	fams := map[string]FamilySpec{}
	for k, v := range t.famSpecs {
		fams[k] = v
	}
	for k, v := range spec.Families {
		old := fams[k]
		orIf(&old.Encoding, v.Encoding)
		orIf(&old.Factor, v.Factor)
		orIf(&old.Estimate, v.Estimate)
		orIf(&old.Why, v.Why)
		orIf(&old.SeparateOutput, v.SeparateOutput)
		fams[k] = old
	}
	models := map[string]ModelSpec{}
	for k, v := range t.modelSpecs {
		models[k] = v
	}
	for _, key := range sortedKeys(spec.Models) {
		v := spec.Models[key]
		name := key
		if i, ok := t.lookupExact(key); ok {
			name = t.models[i].Name
		}
		old := models[name]
		orIf(&old.Family, v.Family)
		orIf(&old.Window, v.Window)
		orIf(&old.MaxOutput, v.MaxOutput)
		orIf(&old.Encoding, v.Encoding)
		orIf(&old.Factor, v.Factor)
		orIf(&old.Estimate, v.Estimate)
		orIf(&old.SeparateOutput, v.SeparateOutput)
		orIf(&old.Source, v.Source)
		if v.Aliases != nil {
			old.Aliases = append(old.Aliases[:len(old.Aliases):len(old.Aliases)], v.Aliases...)
		}
		models[name] = old
	}

	nt := &Table{famSpecs: fams, modelSpecs: models, families: map[string]Family{}, index: map[string]int{}}
	for _, name := range sortedKeys(fams) {
		fs := fams[name]
		f := Family{Name: name, Encoding: O200kBase, Factor: 1}
		setIf(&f.Encoding, fs.Encoding)
		setIf(&f.Factor, fs.Factor)
		setIf(&f.Estimate, fs.Estimate)
		setIf(&f.Why, fs.Why)
		setIf(&f.SeparateOutput, fs.SeparateOutput)
		if err := checkFamily(f); err != nil {
			return nil, err
		}
		nt.families[name] = f
	}
	for _, name := range sortedKeys(models) {
		ms := models[name]
		m := Model{Name: name, Family: "openai", Aliases: ms.Aliases}
		setIf(&m.Family, ms.Family)
		f, ok := nt.families[m.Family]
		if !ok {
			return nil, fmt.Errorf("model %q: unknown family %q (known: %s)", name, m.Family, strings.Join(sortedKeys(nt.families), ", "))
		}
		m.Encoding, m.Factor, m.Estimate, m.SeparateOutput = f.Encoding, f.Factor, f.Estimate, f.SeparateOutput
		setIf(&m.Window, ms.Window)
		setIf(&m.MaxOutput, ms.MaxOutput)
		setIf(&m.Encoding, ms.Encoding)
		setIf(&m.Factor, ms.Factor)
		setIf(&m.Estimate, ms.Estimate)
		setIf(&m.SeparateOutput, ms.SeparateOutput)
		setIf(&m.Source, ms.Source)
		if err := checkModel(m); err != nil {
			return nil, err
		}
		nt.models = append(nt.models, m)
	}
	for i, m := range nt.models {
		for _, n := range append([]string{m.Name}, m.Aliases...) {
			k := strings.ToLower(n)
			if j, dup := nt.index[k]; dup && j != i {
				return nil, fmt.Errorf("model name %q is used by both %q and %q", n, nt.models[j].Name, m.Name)
			}
			nt.index[k] = i
		}
	}
	return nt, nil
}

// orIf sets *dst to src when src is set.
func orIf[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
}

func checkFamily(f Family) error {
	if !isKnownEncoding(f.Encoding) {
		return fmt.Errorf("family %q: unknown encoding %q (known: %s)", f.Name, f.Encoding, strings.Join(knownEncodings, ", "))
	}
	if !(f.Factor >= 1 && f.Factor <= maxFactor) {
		return fmt.Errorf("family %q: factor %v out of range [1, %v]", f.Name, f.Factor, maxFactor)
	}
	return nil
}

func checkModel(m Model) error {
	switch {
	case m.Name == "":
		return errors.New("model with an empty name")
	case m.Window <= 0 || m.Window > maxWindow:
		return fmt.Errorf("model %q: window %d out of range [1, %d]", m.Name, m.Window, maxWindow)
	case m.MaxOutput < 0 || m.MaxOutput > m.Window:
		return fmt.Errorf("model %q: max_output %d out of range [0, window %d]", m.Name, m.MaxOutput, m.Window)
	case !isKnownEncoding(m.Encoding):
		return fmt.Errorf("model %q: unknown encoding %q (known: %s)", m.Name, m.Encoding, strings.Join(knownEncodings, ", "))
	case !(m.Factor >= 1 && m.Factor <= maxFactor):
		return fmt.Errorf("model %q: factor %v out of range [1, %v]", m.Name, m.Factor, maxFactor)
	}
	return nil
}

func setIf[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Models returns the rows of the table sorted by name. The slice is a copy.
func (t *Table) Models() []Model {
	out := make([]Model, len(t.models))
	copy(out, t.models)
	return out
}

// Families returns the tokenizer families sorted by name.
func (t *Table) Families() []Family {
	out := make([]Family, 0, len(t.families))
	for _, k := range sortedKeys(t.families) {
		out = append(out, t.families[k])
	}
	return out
}

func (t *Table) lookupExact(name string) (int, bool) {
	i, ok := t.index[strings.ToLower(name)]
	return i, ok
}

// Name decorations stripped before matching, in order.
var (
	// Provider and router prefixes: "openai/gpt-4o", "models/gemini-2.5-pro",
	// "accounts/fireworks/models/…", Bedrock's "anthropic.claude-…" with an
	// optional region or "global." profile prefix.
	providerPrefix = regexp.MustCompile(`^(?:.*/|(?:[a-z]{2,6}\.)?anthropic\.)`)
	// Version suffixes: "-2024-08-06", "-20250929", "@20250929", "-v1:0",
	// "-latest", "-preview-05-06", "-2411", "-001", "-exp".
	versionSuffix = regexp.MustCompile(`(?:[-@](?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|\d{3}|\d{2}|latest|preview|exp|v\d+(?::\d+)?))+$`)
)

// Lookup finds a model by name. Matching is case-insensitive and tries, in
// order: the name or an alias; the name without provider prefixes ("openai/",
// "models/", Bedrock's "anthropic.") and version suffixes ("-2024-08-06",
// "-20250929", "@20250929", "-latest", "-v1:0"); then the longest table
// name that is a prefix of the name at a "-", ":" or "[" boundary, so that
// "gpt-4o-2024-08-06" and "gpt-4o-audio-preview" find "gpt-4o". A
// fine-tune name ("ft:gpt-4o-2024-08-06:acme::abc123") is looked up as its
// base model. The error wraps ErrUnknownModel and suggests the closest few
// names, if any are close.
func (t *Table) Lookup(name string) (Model, error) {
	if i, ok := t.lookupExact(name); ok {
		return t.models[i], nil
	}
	n := strings.ToLower(strings.TrimSpace(name))
	// A fine-tune, "ft:BASE:ORG:SUFFIX:ID" (OpenAI), is its base model.
	if base, ok := strings.CutPrefix(n, "ft:"); ok {
		n, _, _ = strings.Cut(base, ":")
	}
	n = providerPrefix.ReplaceAllString(n, "")
	n = versionSuffix.ReplaceAllString(n, "")
	if i, ok := t.lookupExact(n); ok {
		return t.models[i], nil
	}
	best, bestLen := -1, 0
	for k, i := range t.index {
		if len(k) > bestLen && len(n) > len(k) && strings.HasPrefix(n, k) && strings.ContainsRune("-:[", rune(n[len(k)])) {
			best, bestLen = i, len(k)
		}
	}
	if best >= 0 {
		return t.models[best], nil
	}
	names := make([]string, len(t.models))
	for i, m := range t.models {
		names[i] = m.Name
	}
	var near []string
	if n != "" {
		near = editdist.Closest(n, names, maxSuggestions, max(2, len(n)/3))
	}
	if len(near) == 0 && n != "" {
		// A family name ("claude") is far from every full name but
		// starts a few of them.
		near = filterPrefix(names, n, maxSuggestions)
	}
	if len(near) == 0 {
		// Said to whoever typed the name, not to a Go caller: each
		// surface adds its own way to list the models (the CLI's
		// "ctxtrim models", the MCP server's hint).
		return Model{}, fmt.Errorf("%w %q: none of the %d known models is close", ErrUnknownModel, name, len(names))
	}
	return Model{}, fmt.Errorf("%w %q; did you mean %s?", ErrUnknownModel, name, strings.Join(quoteAll(near), ", "))
}

// maxSuggestions is how many near names an unknown model's error offers:
// enough to cover a family's sizes (gpt-4o, gpt-4o-mini, gpt-4), few
// enough to read at a glance.
const maxSuggestions = 3

// filterPrefix returns up to n of names starting with prefix, sorted.
func filterPrefix(names []string, prefix string, n int) []string {
	var out []string
	for _, m := range names {
		if strings.HasPrefix(m, prefix) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out[:min(n, len(out))]
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// NewCounter returns the counter for a model of t: exact for tiktoken
// models, the family's encoding × Factor for the others (Model.Estimate).
func (t *Table) NewCounter(model string) (Counter, error) {
	m, err := t.Lookup(model)
	if err != nil {
		return nil, err
	}
	return m.Counter()
}

// Counter returns the counter for m: NewEncodingCounter(m.Encoding), scaled
// by m.Factor when it is not 1.
func (m Model) Counter() (Counter, error) {
	c, err := NewEncodingCounter(m.Encoding)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	return Scaled(c, m.Factor), nil
}

// WithEncoding returns m counted exactly with encoding instead of its own
// tokenizer (-encoding, an MCP call's encoding): the window and output stay
// the model's; "" returns m unchanged. Every caller that lets a user name
// the encoding goes through it.
func (m Model) WithEncoding(encoding string) Model {
	if encoding == "" {
		return m
	}
	m.Encoding, m.Factor, m.Estimate = encoding, 1, false
	return m
}

// Scaled returns a Counter whose counts are c's × factor, rounded up. A
// factor of 1 (or less) returns c itself. Scaled counts are not additive:
// Count(a+b) may differ from Count(a)+Count(b) by one, like exact counts at
// boundaries; callers that need a hard cap recount the final text.
func Scaled(c Counter, factor float64) Counter {
	if factor <= 1 {
		return c
	}
	return scaledCounter{c, factor}
}

type scaledCounter struct {
	c      Counter
	factor float64
}

func (s scaledCounter) Count(text string) int { return s.countOf(s.c.Count(text)) }

// countOf scales an unscaled count n.
func (s scaledCounter) countOf(n int) int {
	// The epsilon keeps an exact product (e.g. 100 × 1.2) from rounding
	// up to the next integer because of binary floating point.
	return int(math.Ceil(float64(n)*s.factor - 1e-9))
}

// Lookup finds a model in the built-in table; see Table.Lookup.
func Lookup(model string) (Model, error) { return DefaultTable().Lookup(model) }

// NewCounter returns the counter for a model of the built-in table; see
// Table.NewCounter. The error wraps ErrUnknownModel for unknown names.
func NewCounter(model string) (Counter, error) { return DefaultTable().NewCounter(model) }

// ContextWindow returns the context window of a model of the built-in table.
func ContextWindow(model string) (tokens int, ok bool) {
	m, err := Lookup(model)
	if err != nil {
		return 0, false
	}
	return m.Window, true
}
