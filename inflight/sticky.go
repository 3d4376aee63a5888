package inflight

import (
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

// DefaultStickyBytes bounds the memory of the pruned forms the proxy
// remembers (Options.StickyBytes 0): enough for a few dozen concurrent
// sessions at a 272k-token window (about 1 MB each), small beside what one
// request already holds.
const DefaultStickyBytes = 64 << 20

// sticky remembers the pruned form of recent requests, keyed by the model,
// the limit and a hash of the request's original items, so that the next
// request of the same conversation, which a client sends as the previous
// one plus new items, can go out as the previous pruned form plus the new
// items: the provider's cached prefix then covers all of it. It is an LRU
// bounded in bytes, safe for concurrent use.
type sticky struct {
	mu      sync.Mutex
	max     int64
	size    int64
	lru     *list.List // of *stickyEntry, most recent first
	entries map[stickyKey]*list.Element
}

type stickyKey struct {
	model  string
	limit  int
	prefix [32]byte // hash chain of the original items
}

type stickyEntry struct {
	key   stickyKey
	items []json.RawMessage // the pruned form's items
	bytes int64
}

func newSticky(max int64) *sticky {
	return &sticky{max: max, lru: list.New(), entries: map[stickyKey]*list.Element{}}
}

// chain returns the hash of each prefix of items: out[j] covers items[:j].
func chain(items []json.RawMessage) [][32]byte {
	out := make([][32]byte, len(items)+1)
	buf := make([]byte, 0, 64)
	for j, it := range items {
		buf = append(append(buf[:0], out[j][:]...), it...)
		out[j+1] = sha256.Sum256(buf)
	}
	return out
}

// lookup returns the pruned items remembered for the longest proper
// prefix of the request's original items (whose hashes are hs), and the
// length of that prefix; 0 when there is none.
func (s *sticky) lookup(model string, limit int, hs [][32]byte) ([]json.RawMessage, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for j := len(hs) - 2; j >= 1; j-- {
		if el, ok := s.entries[stickyKey{model, limit, hs[j]}]; ok {
			s.lru.MoveToFront(el)
			return el.Value.(*stickyEntry).items, j
		}
	}
	return nil, 0
}

// store remembers items as the pruned form of the request whose original
// items hash to prefix.
func (s *sticky) store(model string, limit int, prefix [32]byte, items []json.RawMessage) {
	var n int64
	for _, it := range items {
		n += int64(len(it))
	}
	if n > s.max {
		return
	}
	k := stickyKey{model, limit, prefix}
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.entries[k]; ok {
		s.size -= el.Value.(*stickyEntry).bytes
		s.lru.Remove(el)
	}
	s.entries[k] = s.lru.PushFront(&stickyEntry{k, items, n})
	s.size += n
	for s.size > s.max {
		el := s.lru.Back()
		e := el.Value.(*stickyEntry)
		s.lru.Remove(el)
		delete(s.entries, e.key)
		s.size -= e.bytes
	}
}

// reuse tries the remembered pruned form of conv's longest known prefix
// followed by its new items: it returns that request when it is one of
// conv's format within limit, valid whenever conv is, and how many items
// were new.
func (s *sticky) reuse(model string, conv *history.Conversation, hs [][32]byte, c budget.Counter, limit int) (out *history.Conversation, after, added int, ok bool) {
	prev, j := s.lookup(model, limit, hs)
	if j == 0 {
		return nil, 0, 0, false
	}
	items := conv.Items()
	cand := make([]json.RawMessage, 0, len(prev)+len(items)-j)
	cand = append(append(cand, prev...), items[j:]...)
	out, err := conv.WithItems(cand)
	if err != nil {
		return nil, 0, 0, false
	}
	if after = history.Tokens(out, c); after > limit {
		return nil, 0, 0, false
	}
	if conv.Validate() == nil && out.Validate() != nil {
		return nil, 0, 0, false
	}
	return out, after, len(items) - j, true
}
