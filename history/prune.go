package history

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
)

// Pruning knobs, each a named constant with its reason.
const (
	// DefaultKeepLast is how many of the most recent turns are kept whole
	// when Options.KeepLast is 0: the in-flight tool step and the one before
	// it, which the model usually still reasons about.
	DefaultKeepLast = 2
	// DefaultMaskAfter is how many recent turns keep their tool outputs when
	// Options.MaskAfter is 0. Agent studies (JetBrains, "The Complexity
	// Trap", 2025) masked all but the last ~10 observations without hurting
	// solve rates; masking is only applied as far as the budget needs, so a
	// smaller window costs nothing when the budget is loose.
	DefaultMaskAfter = 4
	// maxItemDivisor sets the default oversize threshold of step 3 to a
	// fraction of the budget: one item may use at most 1/8 of it.
	maxItemDivisor = 8
	// minMaxItem keeps the default threshold useful on tiny budgets.
	minMaxItem = 256
	// truncateHeadPercent of a truncated item's kept tokens go to its head
	// (where commands echo what they are and files start), the rest to its
	// tail (where errors and summaries are).
	truncateHeadPercent = 60
	// minMaskTokens: outputs this small are not worth a placeholder.
	minMaskTokens = 16
)

// Step names, in the order Prune applies them.
const (
	StepMask       = "mask"       // observation masking of old tool outputs
	StepSupersede  = "supersede"  // re-read files, repeated outputs, old images
	StepTruncate   = "truncate"   // middle of oversized items
	StepDrop       = "drop"       // oldest turns, as atoms
	placeholderTag = "[ctxtrim: " // every text ctxtrim writes starts with it
)

// ErrNoFit is wrapped by Prune's error, a *budget.NoFitError with the
// numbers, when even the pinned minimum (the instructions, tool schemas,
// latest user turn and the last turns kept whole) does not fit the
// budget. It is budget.ErrNoFit too, for errors.Is.
var ErrNoFit error = budget.NoFitSentinel("pinned minimum does not fit the budget")

// Options configures Prune. The zero value is valid except for Budget,
// which must be positive (as in slicer.SelectOptions and split.Options);
// Prune does not modify the options.
type Options struct {
	// Budget is the hard cap on the pruned request's tokens, counted with
	// the Counter passed to Prune as Tokens counts them.
	Budget int
	// KeepLast is how many of the most recent turns are never modified or
	// dropped. 0 means DefaultKeepLast; a negative value keeps only the
	// last turn. A turn here is an atom: a user message, an assistant
	// message, or a tool call with all its results (and the reasoning
	// that produced it).
	KeepLast int
	// MaskAfter is how many recent turns keep their tool outputs in step 1.
	// 0 means DefaultMaskAfter; a negative value masks every output outside
	// the KeepLast turns.
	MaskAfter int
	// MaxItem is the size in tokens above which step 3 truncates the middle
	// of an item. 0 means Budget/8 (at least 256).
	MaxItem int
	// Logf receives progress notes; nil discards them.
	Logf func(format string, args ...any)
}

// Step reports one pruning step.
type Step struct {
	Name          string
	Before, After int // request tokens before and after the step
	Edits         int // items changed or turns dropped
}

// Removal describes one thing Prune removed or shortened.
type Removal struct {
	Step   string
	Item   int // index of the item in the input conversation
	Tokens int // tokens saved: the exact saving, scaled as Tokens scales
	What   string
}

// Result is what Prune did.
type Result struct {
	// Conversation is the pruned conversation; it is the input itself
	// when nothing had to change.
	Conversation  *Conversation
	Before, After int // request tokens, as Tokens counts them
	Limit         int // Options.Budget
	Pinned        int // tokens of what Prune never touches, plus the notice dropping all else needs
	Steps         []Step
	Removed       []Removal
	DroppedTurns  int
}

// Changed reports whether anything was pruned.
func (r *Result) Changed() bool { return r.Conversation != nil && r.Conversation.changed }

// Tokens counts conv as a request, with Prune's accounting: the parts by
// the exact counter under c, summed, then scaled once as c scales (see
// the package documentation).
func Tokens(conv *Conversation, c budget.Counter) int {
	return budget.Total(c, func(c budget.Counter) int {
		a := accountant{conv.format, c}
		n := a.fixedTokens(conv)
		for _, it := range conv.items {
			n += a.item(it.raw)
		}
		return n
	})
}

// Prune returns conv cut down to at most opts.Budget tokens, counted with c
// as the API would (see the package documentation for the policy). conv and
// opts are not modified. It returns an error wrapping ErrNoFit when the
// pinned minimum does not fit.
func Prune(conv *Conversation, c budget.Counter, opts *Options) (*Result, error) {
	if c == nil {
		return nil, budget.ErrNilCounter
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	limit := o.Budget
	if limit <= 0 {
		return nil, fmt.Errorf("budget must be positive, got %d", limit)
	}
	// One accounting with Tokens: every count below is the exact
	// counter's under c, summed, and scaled once (budget.ScaleCount) when
	// reported or compared with limit (as s.limit, budget.ExactLimit), so
	// that what Prune fits is what Tokens counts.
	s := newState(conv, limit, c, o)
	pinned := s.pinnedTokens()
	res := &Result{Conversation: conv, Limit: limit, Before: s.scaled(s.total()), Pinned: s.scaled(pinned)}
	if s.fits() {
		res.After = res.Before
		return res, nil
	}
	if pinned > s.limit {
		return nil, s.noFit()
	}
	for _, step := range []struct {
		name string
		run  func() int
	}{
		{StepMask, s.mask},
		{StepSupersede, s.supersede},
		{StepTruncate, s.truncate},
		{StepDrop, s.dropTurns},
	} {
		if s.fits() {
			break
		}
		before := s.scaled(s.total())
		edits := step.run()
		after := s.scaled(s.total())
		res.Steps = append(res.Steps, Step{step.name, before, after, edits})
		s.logf("history: %s: %d edits, %d → %d tokens (budget %d)", step.name, edits, before, after, limit)
	}
	if !s.fits() {
		return nil, s.noFit()
	}
	out := s.build()
	// conv may itself be pruned already: its lines are still the input's,
	// so the cuts add up.
	cut, floor := usageCut(s.a, s.scaled, conv, out)
	out.usageCut, out.usageFloor = conv.usageCut+cut, floor
	if cut > 0 {
		s.logf("history: codex: the last token_count record (line %d) loses the %d tokens pruned before it", conv.usageLine+1, cut)
	}
	res.Conversation = out
	res.Removed = s.removed
	res.DroppedTurns = s.droppedTurns
	res.After = Tokens(out, c)
	if res.After > limit {
		return nil, fmt.Errorf("internal error: pruned request has %d tokens, over the budget of %d", res.After, limit)
	}
	if validate(conv) == nil {
		if err := validate(out); err != nil {
			return nil, fmt.Errorf("internal error: pruning broke the conversation: %w", err)
		}
	}
	return res, nil
}

// span is a turn: items [start, end] that must be kept or dropped together.
type span struct{ start, end int }

type state struct {
	conv *Conversation
	f    Format
	// c is the exact counter under the caller's counter uc (budget.Exact):
	// costs, totals, limit and maxItem are its counts, which add up; scaled
	// gives a count in uc's units, as Tokens reports it.
	c       budget.Counter
	uc      budget.Counter
	a       accountant
	limit   int // the largest exact total within budget (budget.ExactLimit)
	budget  int // Options.Budget, in uc's units
	maxItem int // Options.MaxItem as an exact count
	o       Options
	items   []item
	cost    []int
	drop    []bool
	fixed   int
	units   []span
	unitOf  []int
	sysUnit []bool
	// protectFrom: units from here on are never touched; latestUser is the
	// unit of the latest user message, also never touched.
	protectFrom, latestUser, maskFrom int
	names                             map[[2]int]call // result slot → its call
	done                              map[[2]int]bool // result slots already replaced
	removed                           []Removal
	droppedTurns                      int
	// notice placement, valid when droppedTurns > 0
	noticeAt   int // item the notice replaces (separate) or merges into
	noticeMode int
	noticeRaw  json.RawMessage
	noticeCost int // tokens the notice adds
}

const (
	noticeSeparate = iota // the notice takes the place of the first dropped item
	noticeMerge           // the notice is merged into a kept Anthropic user message
)

// newState prepares the pruning of conv to limit tokens by c.
func newState(conv *Conversation, limit int, c budget.Counter, o Options) *state {
	exact := budget.Exact(c)
	s := &state{conv: conv, f: conv.format, c: exact, uc: c, a: accountant{conv.format, exact},
		limit: budget.ExactLimit(c, limit), budget: limit, o: o,
		names: map[[2]int]call{}, done: map[[2]int]bool{}}
	s.items = append([]item(nil), conv.items...)
	n := len(s.items)
	s.cost = make([]int, n)
	s.drop = make([]bool, n)
	for i, it := range s.items {
		s.cost[i] = s.a.item(it.raw)
	}
	s.fixed = s.a.fixedTokens(conv)
	s.buildUnits()
	if s.o.KeepLast == 0 {
		s.o.KeepLast = DefaultKeepLast
	}
	if s.o.KeepLast < 1 {
		s.o.KeepLast = 1
	}
	if s.o.MaskAfter == 0 {
		s.o.MaskAfter = DefaultMaskAfter
	}
	if s.o.MaxItem <= 0 {
		s.o.MaxItem = max(limit/maxItemDivisor, minMaxItem)
	}
	s.maxItem = budget.ExactLimit(c, s.o.MaxItem)
	s.protectFrom = s.fromEnd(s.o.KeepLast)
	s.maskFrom = s.fromEnd(max(s.o.MaskAfter, 0))
	s.latestUser = -1
	for i := n - 1; i >= 0; i-- {
		if s.items[i].user {
			s.latestUser = s.unitOf[i]
			break
		}
	}
	return s
}

// buildUnits groups items into turns: a call with its results, a reasoning
// item with the item after it, and everything in between, are one turn.
func (s *state) buildUnits() {
	n := len(s.items)
	reach := make([]int, n)
	// A result answers the nearest call with its id before it: ids are not
	// unique in real transcripts (tau-bench reuses them).
	callAt := map[string]int{}
	calls := map[string]call{}
	for j, it := range s.items {
		reach[j] = j
		for _, r := range it.res {
			if i, ok := callAt[r.id]; ok {
				reach[i] = max(reach[i], j)
				s.names[[2]int{j, r.block}] = calls[r.id]
			}
		}
		for _, c := range it.calls {
			callAt[c.id] = j
			calls[c.id] = c
		}
		if it.reas {
			// A reasoning item goes with everything the model produced
			// after it in the same response: the calls and the message.
			k := j + 1
			for k+1 < n && s.isModelOutput(k+1) && !s.items[k+1].reas {
				k++
			}
			if k < n {
				reach[j] = max(reach[j], k)
			}
		}
	}
	s.unitOf = make([]int, n)
	start, end := 0, -1
	for i := 0; i < n; i++ {
		end = max(end, reach[i])
		s.unitOf[i] = len(s.units)
		if i == end {
			sys := false
			for k := start; k <= i; k++ {
				sys = sys || s.items[k].sys
			}
			s.units = append(s.units, span{start, i})
			s.sysUnit = append(s.sysUnit, sys)
			start = i + 1
		}
	}
}

// isModelOutput reports whether item i is something the model produced:
// a call or an assistant message.
func (s *state) isModelOutput(i int) bool {
	it := s.items[i]
	return len(it.calls) > 0 || (it.role == "assistant" && len(it.res) == 0)
}

// fromEnd returns the index of the first of the last k non-instruction units.
func (s *state) fromEnd(k int) int {
	u := len(s.units)
	for u > 0 && k > 0 {
		u--
		if !s.sysUnit[u] {
			k--
		}
	}
	return u
}

// touchable reports whether unit u may be edited or dropped.
func (s *state) touchable(u int) bool {
	return !s.sysUnit[u] && u < s.protectFrom && u != s.latestUser
}

func (s *state) total() int {
	n := s.fixed
	for i, c := range s.cost {
		if !s.drop[i] {
			n += c
		}
	}
	if s.droppedTurns > 0 {
		n += s.noticeCost
	}
	return n
}

func (s *state) fits() bool { return s.total() <= s.limit }

// scaled converts an exact count to the caller's counter's units.
func (s *state) scaled(n int) int { return budget.ScaleCount(s.uc, n) }

func (s *state) logf(format string, args ...any) {
	if s.o.Logf != nil {
		s.o.Logf(format, args...)
	}
}

// pinnedTokens is the size of what Prune never touches, with the notice
// that dropping every other turn would leave.
func (s *state) pinnedTokens() int {
	scratch := *s
	scratch.drop = make([]bool, len(s.drop))
	scratch.droppedTurns = 0
	for u, sp := range s.units {
		if !s.touchable(u) {
			continue
		}
		for i := sp.start; i <= sp.end; i++ {
			scratch.drop[i] = true
		}
		scratch.droppedTurns++
	}
	if scratch.droppedTurns > 0 {
		scratch.placeNotice()
	}
	return scratch.total()
}

func (s *state) noFit() error {
	// The blocks the client injected into the first message count as
	// injected context, whether that message is kept whole or dropped
	// (they then ride with the notice).
	inj := s.injectedTokens()
	sys, user, last := inj, 0, 0
	for u, sp := range s.units {
		if s.touchable(u) {
			continue
		}
		t := 0
		for i := sp.start; i <= sp.end; i++ {
			t += s.cost[i]
		}
		if sp.start == 0 {
			t -= inj
		}
		switch {
		case s.sysUnit[u]:
			sys += t
		case u == s.latestUser:
			user += t
		default:
			last += t
		}
	}
	pinned := s.pinnedTokens()
	shares := []budget.Share{
		{Name: "instructions, tools and reply overhead", Tokens: s.fixed},
		{Name: "system, developer and injected context", Tokens: sys},
		{Name: "latest user turn", Tokens: user},
		{Name: fmt.Sprintf("last %d turns kept whole", s.o.KeepLast), Tokens: last},
		{Name: "notice of dropped turns", Tokens: pinned - s.fixed - sys - user - last},
	}
	// In the caller's units, each share is the scaled running sum less the
	// one before it, so that the shares still sum to Pinned.
	sum, prev := 0, 0
	for i := range shares {
		sum += shares[i].Tokens
		shares[i].Tokens, prev = s.scaled(sum)-prev, s.scaled(sum)
	}
	return &budget.NoFitError{Pinned: s.scaled(pinned), Budget: s.budget, Err: ErrNoFit, Breakdown: shares}
}

// edit replaces item i's bytes and recounts it.
func (s *state) edit(i int, raw json.RawMessage, step, what string) {
	before := s.cost[i]
	s.items[i].raw = raw
	s.cost[i] = s.a.item(raw)
	s.removed = append(s.removed, Removal{step, i, s.scaled(before - s.cost[i]), what})
}

// resultSlot is one tool result in the conversation.
type resultSlot struct {
	item, block int
	id          string
}

// slots lists the tool results in touchable units before unit limit, oldest
// first, skipping those already replaced.
func (s *state) slots(limit int) []resultSlot {
	var out []resultSlot
	for u := 0; u < min(limit, len(s.units)); u++ {
		if !s.touchable(u) {
			continue
		}
		for i := s.units[u].start; i <= s.units[u].end; i++ {
			for _, r := range s.items[i].res {
				if !s.done[[2]int{i, r.block}] {
					out = append(out, resultSlot{i, r.block, r.id})
				}
			}
		}
	}
	return out
}

func (s *state) toolName(r resultSlot) string {
	if c, ok := s.names[[2]int{r.item, r.block}]; ok && c.name != "" {
		return c.name
	}
	return "a tool"
}

// replaceResult swaps a tool result for a placeholder when that saves tokens.
func (s *state) replaceResult(r resultSlot, step, placeholder string) bool {
	text, _ := resultText(s.f, s.items[r.item].raw, r.block)
	if strings.HasPrefix(text, placeholderTag) {
		return false
	}
	raw, err := setResult(s.f, s.items[r.item].raw, r.block, placeholder)
	if err != nil || s.a.item(raw) >= s.cost[r.item] {
		return false
	}
	s.done[[2]int{r.item, r.block}] = true
	s.edit(r.item, raw, step, placeholder)
	return true
}

// mask is step 1: replace old tool outputs, oldest first, with a
// placeholder naming the tool and the size of what was removed.
func (s *state) mask() int {
	n := 0
	from := s.maskFrom
	if s.o.MaskAfter < 0 {
		from = s.protectFrom
	}
	for _, r := range s.slots(from) {
		if s.fits() {
			break
		}
		t := s.a.result(s.items[r.item].raw, r.block)
		if t < minMaskTokens {
			continue
		}
		p := fmt.Sprintf("%soutput of %s omitted (%d tokens)]", placeholderTag, s.toolName(r), s.scaled(t))
		if s.replaceResult(r, StepMask, p) {
			n++
		}
	}
	return n
}

// supersede is step 2: outputs of a file read that was read again later,
// outputs identical to a later output, and images outside the kept turns.
func (s *state) supersede() int {
	n := 0
	// What later calls read, and which later outputs exist.
	type later struct{ reads, calls, outputs map[string]bool }
	all := s.slotsAll()
	seen := later{map[string]bool{}, map[string]bool{}, map[string]bool{}}
	superseded := map[[2]int]string{}
	for k := len(all) - 1; k >= 0; k-- {
		r := all[k]
		c := s.names[[2]int{r.item, r.block}]
		text, _ := resultText(s.f, s.items[r.item].raw, r.block)
		key := c.name + "\x00" + c.args
		path := readPath(c.name, c.args)
		switch {
		case strings.HasPrefix(text, placeholderTag):
		case path != "" && seen.reads[path]:
			superseded[[2]int{r.item, r.block}] = fmt.Sprintf("%soutput of %s superseded by a later read of %s (%%d tokens)]", placeholderTag, s.toolName(r), path)
		case c.name != "" && seen.calls[key]:
			superseded[[2]int{r.item, r.block}] = fmt.Sprintf("%soutput of %s superseded by a later identical call (%%d tokens)]", placeholderTag, s.toolName(r))
		case text != "" && seen.outputs[text]:
			superseded[[2]int{r.item, r.block}] = fmt.Sprintf("%soutput of %s identical to a later output (%%d tokens)]", placeholderTag, s.toolName(r))
		}
		if path != "" {
			seen.reads[path] = true
		}
		if c.name != "" {
			seen.calls[key] = true
		}
		if text != "" {
			seen.outputs[text] = true
		}
	}
	for _, r := range s.slots(len(s.units)) {
		if s.fits() {
			return n
		}
		p, ok := superseded[[2]int{r.item, r.block}]
		if !ok {
			continue
		}
		if s.replaceResult(r, StepSupersede, fmt.Sprintf(p, s.scaled(s.a.result(s.items[r.item].raw, r.block)))) {
			n++
		}
	}
	for u := range s.units {
		if !s.touchable(u) {
			continue
		}
		for i := s.units[u].start; i <= s.units[u].end; i++ {
			for _, r := range s.items[i].res {
				imgs := resultImages(s.f, s.items[i].raw, r.block)
				for k := len(imgs) - 1; k >= 0; k-- {
					if s.fits() {
						return n
					}
					p := placeholderTag + "image removed]"
					raw, err := replaceResultPart(s.f, s.items[i].raw, r.block, imgs[k], textPart(s.f, "user", p))
					if err == nil {
						s.edit(i, raw, StepSupersede, p+" from the output of "+s.toolName(resultSlot{i, r.block, r.id}))
						n++
					}
				}
			}
			parts := imageParts(s.items[i].raw)
			for k := len(parts) - 1; k >= 0; k-- {
				if s.fits() {
					return n
				}
				p := placeholderTag + "image removed]"
				raw, err := replacePart(s.items[i].raw, parts[k], textPart(s.f, s.items[i].role, p))
				if err == nil {
					s.edit(i, raw, StepSupersede, p)
					n++
				}
			}
		}
	}
	return n
}

// slotsAll lists every tool result, touchable or not, in order.
func (s *state) slotsAll() []resultSlot {
	var out []resultSlot
	for i, it := range s.items {
		for _, r := range it.res {
			out = append(out, resultSlot{i, r.block, r.id})
		}
	}
	return out
}

// readPath returns the file a call reads, for the tools whose reads can be
// recognised: a read/view/open/cat tool with a path argument, or a shell
// command "cat PATH".
func readPath(name, args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	lname := strings.ToLower(name)
	if cmd, ok := m["command"].(string); ok && cmd == "view" {
		lname = "view"
	}
	for _, verb := range []string{"read", "view", "open", "cat", "get_file"} {
		if strings.Contains(lname, verb) {
			for _, k := range []string{"path", "file_path", "filePath", "filename", "file"} {
				if p, ok := m[k].(string); ok && p != "" {
					return p
				}
			}
		}
	}
	for _, k := range []string{"cmd", "command"} {
		if cmd, ok := m[k].(string); ok {
			f := strings.Fields(cmd)
			if len(f) == 2 && (f[0] == "cat" || f[0] == "open") {
				return f[1]
			}
		}
	}
	return ""
}

// truncate is step 3: cut the middle out of items above MaxItem tokens,
// oldest first, each only as far as the budget needs (never below MaxItem).
func (s *state) truncate() int {
	n := 0
	for u := range s.units {
		if !s.touchable(u) {
			continue
		}
		for i := s.units[u].start; i <= s.units[u].end; i++ {
			if s.fits() {
				return n
			}
			if s.items[i].reas || s.items[i].sys {
				continue
			}
			for _, r := range s.items[i].res {
				text, textOnly := resultText(s.f, s.items[i].raw, r.block)
				cut, ok := s.cut(text, textOnly)
				if !ok {
					continue
				}
				raw, err := setResult(s.f, s.items[i].raw, r.block, cut)
				if err == nil && s.a.item(raw) < s.cost[i] {
					s.edit(i, raw, StepTruncate, "middle of the output of "+s.toolName(resultSlot{i, r.block, r.id}))
					n++
				}
			}
			if s.items[i].role == "tool" {
				continue // its content is the result, handled above
			}
			for _, sl := range textSlots(s.items[i].raw) {
				if slices.Contains(s.items[i].injected, sl.part) {
					continue // the client's context: pinned
				}
				cut, ok := s.cut(sl.text, true)
				if !ok {
					continue
				}
				raw, err := setText(s.items[i].raw, sl.part, cut)
				if err == nil && s.a.item(raw) < s.cost[i] {
					s.edit(i, raw, StepTruncate, "middle of a "+s.items[i].role+" message")
					n++
				}
			}
		}
	}
	return n
}

// cut shortens text to what the budget needs, if it is oversized.
func (s *state) cut(text string, textOnly bool) (string, bool) {
	if !textOnly || strings.HasPrefix(text, placeholderTag) {
		return "", false
	}
	t := s.c.Count(text)
	if t <= s.maxItem {
		return "", false
	}
	const markerTokens = 16 // the marker's own size, about
	target := max(s.maxItem, t-(s.total()-s.limit)-markerTokens)
	if target >= t {
		return "", false
	}
	return truncateMiddle(s.c, text, t, target, s.scaled), true
}

// truncateMiddle keeps about target tokens of text, head and tail, by c,
// with a marker in place of the middle saying how many tokens it held
// (scaled to the caller's units).
func truncateMiddle(c budget.Counter, text string, total, target int, scaled func(int) int) string {
	headBudget := target * truncateHeadPercent / 100
	tailBudget := target - headBudget
	h := prefixLen(c, text, headBudget)
	t := suffixLen(c, text[h:], tailBudget)
	head, tail := text[:h], text[len(text)-t:]
	omitted := scaled(total - c.Count(head) - c.Count(tail))
	return fmt.Sprintf("%s\n%s%d tokens omitted from the middle]\n%s", head, placeholderTag, omitted, tail)
}

// prefixLen is the byte length of the longest prefix of s (cut at a rune
// start, preferring a line end) with at most n tokens.
func prefixLen(c budget.Counter, s string, n int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		mid := runeStart(s, (lo+hi+1)/2)
		if mid <= lo {
			mid = runeStart(s, lo+1)
			if mid <= lo || mid > hi {
				break
			}
		}
		if c.Count(s[:mid]) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	lo = runeStart(s, lo)
	if nl := strings.LastIndexByte(s[:lo], '\n'); nl >= 0 && nl+1 >= lo*4/5 {
		lo = nl + 1
	}
	return lo
}

// suffixLen is prefixLen from the end.
func suffixLen(c budget.Counter, s string, n int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		start := runeStart(s, len(s)-mid)
		mid = len(s) - start
		if mid <= lo {
			break
		}
		if c.Count(s[start:]) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	start := len(s) - lo
	if nl := strings.IndexByte(s[start:], '\n'); nl >= 0 && nl < lo/5 {
		start += nl + 1
	}
	return len(s) - start
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// dropTurns is step 4: drop whole turns, oldest first, and leave one notice
// saying how many were omitted.
func (s *state) dropTurns() int {
	// The first user message usually states the task: it goes last. Not in
	// Anthropic requests, where keeping it would leave a second gap whose
	// sides may have the same role, and only one notice to mend it. (What
	// Claude Code injected into that message is not lost with it: the
	// notice carries it; see placeNotice.)
	first := -1
	for i, it := range s.items {
		if it.user && s.f != FormatAnthropic {
			first = s.unitOf[i]
			break
		}
	}
	var order []int
	for u := range s.units {
		if s.touchable(u) && u != first {
			order = append(order, u)
		}
	}
	if first >= 0 && s.touchable(first) {
		order = append(order, first)
	}
	n := 0
	for _, u := range order {
		if s.fits() {
			break
		}
		sp := s.units[u]
		saved := 0
		for i := sp.start; i <= sp.end; i++ {
			s.drop[i] = true
			saved += s.cost[i]
		}
		if sp.start == 0 {
			saved -= s.injectedTokens() // kept: the notice carries them
		}
		s.droppedTurns++
		s.removed = append(s.removed, Removal{StepDrop, sp.start, s.scaled(saved), s.describe(sp)})
		s.placeNotice()
		n++
	}
	return n
}

func (s *state) describe(sp span) string {
	var roles []string
	for i := sp.start; i <= sp.end; i++ {
		it := s.items[i]
		switch {
		case it.role != "":
			roles = append(roles, it.role)
		default:
			roles = append(roles, it.typ)
		}
	}
	what := "turn: " + strings.Join(roles, ", ")
	if len(s.items[sp.start].injected) > 0 {
		what += " (its <system-reminder> blocks kept)"
	}
	return what
}

// placeNotice decides where the notice goes and what it costs.
//
// In Anthropic requests it must leave the first message the user's and
// the roles alternating, and it carries what Claude Code injected into a
// dropped first message (its <system-reminder> blocks: CLAUDE.md, the
// environment, git status, the date): dropping is oldest first, so a
// dropped first message is the start of the one gap, and its injected
// blocks go, byte for byte and ahead of the notice, into the user message
// after the gap when there is one (a user message can open the request),
// else into a user message of their own in the first message's place.
// So the context is pinned while the prompt beside it, which may be a
// paste of any size, is pruned like any turn.
func (s *state) placeNotice() {
	first := -1
	for i, d := range s.drop {
		if d {
			first = i
			break
		}
	}
	word := "turns were"
	if s.droppedTurns == 1 {
		word = "turn was"
	}
	text := fmt.Sprintf("%s%d earlier %s omitted to fit the context budget]", placeholderTag, s.droppedTurns, word)
	s.noticeAt, s.noticeMode = first, noticeSeparate
	s.noticeRaw = noticeItem(s.f, text)
	if s.f == FormatAnthropic {
		var carry []json.RawMessage
		if first == 0 {
			carry = s.injectedBlocks()
		}
		next, prev := -1, -1
		for i := first + 1; i < len(s.items); i++ {
			if !s.drop[i] {
				next = i
				break
			}
		}
		for i := first - 1; i >= 0; i-- {
			if !s.drop[i] {
				prev = i
				break
			}
		}
		target := -1
		switch {
		case next >= 0 && s.items[next].role == "user":
			target = next
		case prev >= 0 && s.items[prev].role == "user":
			target = prev
		}
		if target >= 0 {
			if raw, err := mergeNotice(s.items[target].raw, carry, text); err == nil {
				s.noticeAt, s.noticeMode, s.noticeRaw = target, noticeMerge, raw
				s.noticeCost = s.a.item(raw) - s.cost[target]
				return
			}
		}
		if carry != nil {
			// The first message itself, its content the injected blocks
			// and the notice: any other field of it stays.
			if raw, err := setContent(s.items[0].raw, append(carry, textPart(s.f, "user", text))); err == nil {
				s.noticeRaw = raw
			}
		}
	}
	s.noticeCost = s.a.item(s.noticeRaw)
}

// injectedBlocks returns the raw content blocks of the first item that
// the client injected (item.injected), in order; nil when there are none.
func (s *state) injectedBlocks() []json.RawMessage {
	if len(s.items) == 0 || len(s.items[0].injected) == 0 {
		return nil
	}
	ms, err := parseObject(s.items[0].raw)
	if err != nil {
		return nil
	}
	blocks, err := parseArray(get(ms, "content"))
	if err != nil {
		return nil
	}
	var out []json.RawMessage
	for _, b := range s.items[0].injected {
		if b < len(blocks) {
			out = append(out, blocks[b])
		}
	}
	return out
}

// injectedTokens counts the blocks of injectedBlocks, as their parts.
func (s *state) injectedTokens() int {
	n := 0
	for _, b := range s.injectedBlocks() {
		n += s.a.part(b)
	}
	return n
}

// build assembles the pruned conversation.
func (s *state) build() *Conversation {
	out := *s.conv
	out.changed = true
	out.items = make([]item, 0, len(s.items))
	for i, it := range s.items {
		if s.droppedTurns > 0 && i == s.noticeAt {
			switch s.noticeMode {
			case noticeSeparate:
				out.items = append(out.items, item{raw: s.noticeRaw, line: it.line, elem: it.elem,
					role: s.noticeRole(), typ: s.noticeType(), notice: true})
				continue
			case noticeMerge:
				it.raw = s.noticeRaw
			}
		}
		if s.drop[i] {
			continue
		}
		out.items = append(out.items, it)
	}
	if s.f == FormatAnthropic {
		// The first message may now be the notice or the message the
		// injected blocks moved to: pinned again if pruned again.
		markInjected(out.items)
	}
	return &out
}

func (s *state) noticeRole() string {
	if s.f == FormatChat || s.f == FormatAnthropic {
		return "user"
	}
	return "developer"
}

func (s *state) noticeType() string {
	if s.f == FormatChat || s.f == FormatAnthropic {
		return ""
	}
	return "message"
}
