package index

import "sync"

// interner shares one copy of each identifier among all files: the same
// names recur across a repository, and the refs are most of an index's
// memory. It is safe for concurrent use.
type interner struct {
	mu sync.Mutex
	m  map[string]string
}

// all replaces the strings of ss by their shared copies, in place.
func (in *interner) all(ss []string) []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.m == nil {
		in.m = map[string]string{}
	}
	for i, s := range ss {
		if t, ok := in.m[s]; ok {
			ss[i] = t
		} else {
			in.m[s] = s
		}
	}
	return ss
}

// symbols shares the names and scopes of syms, in place: method and
// receiver names repeat across files as identifiers do.
func (in *interner) symbols(syms []Symbol) []Symbol {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.m == nil {
		in.m = map[string]string{}
	}
	for i := range syms {
		s := &syms[i]
		for _, p := range []*string{&s.Name, &s.Scope} {
			if *p == "" {
				continue
			}
			if t, ok := in.m[*p]; ok {
				*p = t
			} else {
				in.m[*p] = *p
			}
		}
	}
	return syms
}
