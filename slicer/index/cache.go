package index

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"time"
)

// The extraction cache.
//
// Extraction results depend only on a file's content, the language chosen
// for it and the version of the grammars, queries and content classifiers.
// So the cache is keyed by git blob hash + language, and the whole file is
// tagged with a version string built from those inputs (cacheVersion); a
// file with another version is ignored and rebuilt, never migrated. Keys
// never involve mtimes.
//
// There is one cache file per repository, named after the repository's
// common git directory, so every linked worktree of a repository shares it;
// a plain directory gets its own. Loading one file is what makes a warm
// index fast: one read instead of one per source file.
//
// The file is written to a temporary name in the same directory and renamed
// over the old one, so readers see either the old or the new file, never a
// torn one. Two concurrent writers lose nothing but each other's additions.
// A checksum over the body catches truncation and bit rot; anything that
// does not decode is logged and treated as empty.

// cacheFormat is bumped when the file layout or the meaning of a field
// changes. 5: each entry's fields are prefixed with their length, so that
// a load decodes only the entries a run asks for; CRC-32C for SHA-256.
const cacheFormat = 5

// classifierVersion is bumped when binary, generated or minified detection
// changes, since their results are cached. 4: "auto-generated" in a
// header's prose no longer marks the file. 5: a docstring in single
// quotes (Python's triple form) opens a header comment, a line starting ", " is not.
// 6: content that is not UTF-8 and not text by its signature is binary.
const classifierVersion = 6

// extractVersion is bumped when extraction code (not a query: those are
// hashed into cacheVersion) changes what it finds. 2: Lua parses are
// serialized, so results cached while two could race are dropped. 3: Go
// lines ignore //line directives. 4: a parse is cut after 10 s, not 2 s,
// so files indexed lexically because a loaded machine cut them are parsed
// again.
const extractVersion = 4

// cacheMagic opens every cache file.
const cacheMagic = "ctxtrim-index-cache\n"

// maxTrees bounds the remembered commit → tree pairs: a few branches'
// worth of HEADs.
const maxTrees = 256

// minStaleEntries is the least number of entries kept for blobs no longer
// in the work tree (other branches, other worktrees); a save keeps as many
// as are in use, or this many when that is fewer, so that a file holds at
// most twice what a run reads and a switch to a branch and back stays
// warm. A bound of 50,000 let a cache of moby's worktrees at many commits
// grow to 61 MB, which a warm index read, checked and decoded in 1.5 s,
// against 0.2 s for the entries in use alone.
const minStaleEntries = 5_000

// checksumTable is CRC-32C's, which the CPU computes: the checksum catches
// truncation and bit rot in a cache, not an adversary, and SHA-256 took a
// quarter of a warm index's time on a large cache.
var checksumTable = crc32.MakeTable(crc32.Castagnoli)

// checksumSize is the bytes of the checksum that ends a cache file.
const checksumSize = crc32.Size

// cacheEntry is what extraction learned about one blob.
type cacheEntry struct {
	Lang      string // "" for lexical files
	Binary    bool
	Generated bool
	Minified  bool
	NotUTF8   bool // not valid UTF-8: skipped (classify.go, SkipNotUTF8)
	BadByte   int  // NotUTF8: the offset of the first invalid byte
	Tokens    int
	Symbols   []Symbol
	Refs      []string
}

// cacheVersion identifies everything that cached results depend on: the
// cache layout, the classifiers, the tree-sitter module version and the
// text of every query.
func cacheVersion() string {
	h := sha256.New()
	for _, l := range languages() {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", l.name, l.defs, l.refs)
	}
	ts := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/smacker/go-tree-sitter" {
				ts = d.Version
				if d.Replace != nil {
					ts += "=>" + d.Replace.Path + "@" + d.Replace.Version
				}
			}
		}
	}
	return fmt.Sprintf("format=%d classify=%d extract=%d tree-sitter=%s queries=%x", cacheFormat, classifierVersion, extractVersion, ts, h.Sum(nil)[:8])
}

// cacheData is the content of a cache file.
type cacheData struct {
	Entries map[string]*cacheEntry // by cacheKey
	// Raw are entries as the file holds them, by cacheKey, not decoded:
	// openCache decodes an entry when a run asks for it, and save writes
	// the others back as they were. A cache that kept 50,000 entries of
	// other commits beside moby's 2,643 in use took 0.5 s and 130 MB to decode
	// whole, and a warm index 1.5 s instead of 0.2.
	Raw map[string][]byte
	// Trees maps commit hashes to their tree hashes, so that a warm run can
	// compare HEAD with the git index's cached tree without reading the
	// object database (go-git's first object read indexes every pack
	// offset, a noticeable cost on large repositories).
	Trees map[string]string
}

func newCacheData() *cacheData {
	return &cacheData{Entries: map[string]*cacheEntry{}, Trees: map[string]string{}}
}

// cacheKey is the key of one blob's results.
func cacheKey(blob, lang string) string { return blob + "/" + lang }

// cache is one repository's extraction cache. get is safe for concurrent
// use; put is too.
type cache struct {
	path    string // "" when caching is off
	version string
	old     *cacheData // loaded, entries Raw; never modified
	mu      sync.Mutex
	decoded map[string]*cacheEntry // old's entries decoded so far
	intern  map[string]string      // the strings decoded entries share
	added   map[string]*cacheEntry
	trees   map[string]string // commit → tree pairs learnt this run
}

// openCache loads the cache file for the repository identified by id (its
// common git directory, or a plain directory's path). A missing file is an
// empty cache; an unreadable, corrupt or foreign-version one is reported
// through logf and treated as empty.
func openCache(dir, id, version string, logf func(string, ...any)) *cache {
	sum := sha256.Sum256([]byte(id))
	c := newCache(filepath.Join(dir, "index-"+hex.EncodeToString(sum[:12])+".bin"), version)
	now := time.Now()
	trimCache(dir, c.path, now, logf)
	data, err := os.ReadFile(c.path) // sized from the file, read once
	if errors.Is(err, os.ErrNotExist) {
		return c
	}
	if fi, serr := os.Stat(c.path); err == nil && serr == nil {
		markUsed(c.path, fi.ModTime(), now)
	}
	if err != nil {
		logf("cache %s: %v (rebuilding)", c.path, err)
		return c
	}
	m, err := loadCache(data, version)
	if err != nil {
		logf("cache %s: %v (rebuilding)", c.path, err)
		return c
	}
	c.old = m
	return c
}

// noCache is a cache that stores nothing.
func noCache() *cache { return newCache("", "") }

// newCache is an empty cache saved at path ("": never saved).
func newCache(path, version string) *cache {
	return &cache{
		path: path, version: version, old: newCacheData(),
		decoded: map[string]*cacheEntry{}, intern: map[string]string{},
		added: map[string]*cacheEntry{}, trees: map[string]string{},
	}
}

// get returns the entry for key, decoding a loaded one on first use. An
// entry that does not decode is a miss: extraction runs again and save
// replaces it.
func (c *cache) get(key string) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.decoded[key]; ok {
		return e, true
	}
	if raw, ok := c.old.Raw[key]; ok {
		if e, err := decodeEntry(raw, c.intern); err == nil {
			c.decoded[key] = e
			return e, true
		}
	}
	e, ok := c.added[key]
	return e, ok
}

func (c *cache) put(key string, e *cacheEntry) {
	c.mu.Lock()
	c.added[key] = e
	c.mu.Unlock()
}

// tree returns the tree hash of a commit, if known.
func (c *cache) tree(commit string) (string, bool) {
	if t, ok := c.old.Trees[commit]; ok {
		return t, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.trees[commit]
	return t, ok
}

// putTree remembers a commit's tree hash.
func (c *cache) putTree(commit, tree string) {
	c.mu.Lock()
	c.trees[commit] = tree
	c.mu.Unlock()
}

// save writes the cache if anything was added: the entries for the keys in
// use, then stale ones up to maxStaleEntries.
func (c *cache) save(inUse map[string]bool) error {
	if c.path == "" || len(c.added) == 0 && len(c.trees) == 0 {
		return nil
	}
	all := &cacheData{Entries: make(map[string]*cacheEntry, len(c.added)), Raw: make(map[string][]byte, len(c.old.Raw)), Trees: map[string]string{}}
	for k, t := range c.trees {
		all.Trees[k] = t
	}
	for k, t := range c.old.Trees {
		if len(all.Trees) >= maxTrees {
			break
		}
		all.Trees[k] = t
	}
	stale, maxStale := 0, max(len(inUse), minStaleEntries)
	for k, raw := range c.old.Raw {
		if !inUse[k] {
			if stale >= maxStale {
				continue
			}
			stale++
		}
		all.Raw[k] = raw // an entry never changes: its key is the blob's hash
	}
	for k, e := range c.added {
		all.Entries[k] = e
		delete(all.Raw, k) // one that did not decode
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return fmt.Errorf("save cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), "index-*.tmp")
	if err != nil {
		return fmt.Errorf("save cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	w := bufio.NewWriterSize(tmp, 1<<16)
	if err := encodeCache(w, c.version, all); err != nil {
		tmp.Close()
		return fmt.Errorf("save cache %s: %w", tmp.Name(), err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("save cache %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save cache %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		return fmt.Errorf("save cache: %w", err)
	}
	return nil
}

// Layout: cacheMagic, the version string, the body, then the CRC-32C of the
// body (big-endian). The body holds a count and, per entry in key order,
// the key and the entry's length-prefixed fields (lang, flags, tokens,
// symbols and refs: appendEntry); then the commit → tree pairs. Integers
// are uvarints; strings are length-prefixed.

const (
	flagBinary = 1 << iota
	flagGenerated
	flagMinified
	flagNotUTF8 // followed by the uvarint offset of the first bad byte
)

func encodeCache(w io.Writer, version string, d *cacheData) error {
	var head []byte
	head = append(head, cacheMagic...)
	head = appendString(head, version)
	if _, err := w.Write(head); err != nil {
		return err
	}
	// The body is streamed in chunks through the checksum, never held whole.
	h := crc32.New(checksumTable)
	var body []byte
	var err error
	flush := func(force bool) {
		if err != nil || !force && len(body) < 1<<16 {
			return
		}
		h.Write(body)
		_, err = w.Write(body)
		body = body[:0]
	}
	keys := make([]string, 0, len(d.Entries)+len(d.Raw))
	for k := range d.Entries {
		keys = append(keys, k)
	}
	for k := range d.Raw {
		if d.Entries[k] == nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	body = binary.AppendUvarint(body, uint64(len(keys)))
	var entry []byte
	for _, k := range keys {
		body = appendString(body, k)
		if e := d.Entries[k]; e != nil {
			entry = appendEntry(entry[:0], e)
			body = binary.AppendUvarint(body, uint64(len(entry)))
			body = append(body, entry...)
		} else {
			body = binary.AppendUvarint(body, uint64(len(d.Raw[k])))
			body = append(body, d.Raw[k]...)
		}
		flush(false)
	}
	commits := make([]string, 0, len(d.Trees))
	for k := range d.Trees {
		commits = append(commits, k)
	}
	sort.Strings(commits)
	body = binary.AppendUvarint(body, uint64(len(commits)))
	for _, k := range commits {
		body = appendString(body, k)
		body = appendString(body, d.Trees[k])
	}
	flush(true)
	if err != nil {
		return err
	}
	_, err = w.Write(h.Sum(nil))
	return err
}

// appendEntry appends the fields of one entry: lang, flags (and the bad
// byte's offset), tokens, symbols and refs.
func appendEntry(b []byte, e *cacheEntry) []byte {
	b = appendString(b, e.Lang)
	var flags byte
	if e.Binary {
		flags |= flagBinary
	}
	if e.Generated {
		flags |= flagGenerated
	}
	if e.Minified {
		flags |= flagMinified
	}
	if e.NotUTF8 {
		flags |= flagNotUTF8
	}
	b = append(b, flags)
	if e.NotUTF8 {
		b = binary.AppendUvarint(b, uint64(e.BadByte))
	}
	b = binary.AppendUvarint(b, uint64(e.Tokens))
	b = binary.AppendUvarint(b, uint64(len(e.Symbols)))
	for _, s := range e.Symbols {
		b = appendString(b, s.Name)
		b = appendString(b, s.Kind)
		b = binary.AppendUvarint(b, uint64(s.Start))
		b = binary.AppendUvarint(b, uint64(s.End))
		b = appendString(b, s.Signature)
		b = appendString(b, s.Scope)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Refs)))
	for _, r := range e.Refs {
		b = appendString(b, r)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// errCorrupt reports a cache file that does not decode.
var errCorrupt = errors.New("corrupt cache file")

// loadCache checks data's magic, version and checksum and reads its
// entries without decoding them (cacheData.Raw; the slices are data's).
func loadCache(data []byte, version string) (*cacheData, error) {
	if !bytes.HasPrefix(data, []byte(cacheMagic)) {
		return nil, fmt.Errorf("%w: bad magic", errCorrupt)
	}
	d := decoder{b: data[len(cacheMagic):]}
	if v := d.str(); d.err != nil || v != version {
		if d.err != nil {
			return nil, d.err
		}
		return nil, fmt.Errorf("cache version %q, want %q", v, version)
	}
	if len(d.b) < checksumSize {
		return nil, fmt.Errorf("%w: truncated", errCorrupt)
	}
	body, sum := d.b[:len(d.b)-checksumSize], d.b[len(d.b)-checksumSize:]
	if got := crc32.Checksum(body, checksumTable); binary.BigEndian.Uint32(sum) != got {
		return nil, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	d.b = body
	n := d.count("")
	raw := make(map[string][]byte, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		k := d.str()
		raw[k] = d.strBytes()
	}
	nt := d.count("tree ")
	trees := make(map[string]string, nt)
	for i := uint64(0); i < nt && d.err == nil; i++ {
		k := d.str()
		trees[k] = d.str()
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%w: trailing bytes", errCorrupt)
	}
	return &cacheData{Entries: map[string]*cacheEntry{}, Raw: raw, Trees: trees}, nil
}

// decodeCache is loadCache with every entry decoded.
func decodeCache(data []byte, version string) (*cacheData, error) {
	m, err := loadCache(data, version)
	if err != nil {
		return nil, err
	}
	intern := map[string]string{}
	for k, raw := range m.Raw {
		e, err := decodeEntry(raw, intern)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", k, err)
		}
		m.Entries[k] = e
	}
	m.Raw = nil
	return m, nil
}

// decodeEntry decodes the fields appendEntry wrote, interning the strings
// that repeat across files (refs, kinds, scopes) in intern.
func decodeEntry(raw []byte, intern map[string]string) (*cacheEntry, error) {
	d := decoder{b: raw, intern: intern}
	e := &cacheEntry{Lang: d.istr()}
	flags := d.byte()
	e.Binary, e.Generated, e.Minified = flags&flagBinary != 0, flags&flagGenerated != 0, flags&flagMinified != 0
	if e.NotUTF8 = flags&flagNotUTF8 != 0; e.NotUTF8 {
		e.BadByte = int(d.uint())
	}
	e.Tokens = int(d.uint())
	if ns := d.count("symbol "); ns > 0 {
		e.Symbols = make([]Symbol, ns)
	}
	for j := range e.Symbols {
		s := &e.Symbols[j]
		s.Name, s.Kind = d.str(), d.istr()
		s.Start, s.End = int(d.uint()), int(d.uint())
		s.Signature, s.Scope = d.str(), d.istr()
	}
	if nr := d.count("ref "); nr > 0 {
		e.Refs = make([]string, nr)
	}
	for j := range e.Refs {
		e.Refs[j] = d.istr()
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: trailing bytes in an entry", errCorrupt)
	}
	if d.err != nil {
		return nil, d.err
	}
	return e, nil
}

// decoder reads the cache body; the first error sticks.
type decoder struct {
	b      []byte
	err    error
	intern map[string]string // refs, kinds and scopes repeat across files
}

// istr is str, interned.
func (d *decoder) istr() string {
	b := d.strBytes()
	if d.err != nil {
		return ""
	}
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	d.intern[s] = s
	return s
}

// strBytes reads a length-prefixed string's bytes, still in d.b.
func (d *decoder) strBytes() []byte {
	n := d.uint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = fmt.Errorf("%w: truncated string", errCorrupt)
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

// count reads the length of a list, which cannot exceed the bytes left
// (every element takes at least one); a larger one is corrupt. what names
// the list in the error ("symbol ", or "" for the entries).
func (d *decoder) count(what string) uint64 {
	n := d.uint()
	if d.err == nil && n > uint64(len(d.b)) {
		d.err = fmt.Errorf("%w: bad %scount", errCorrupt, what)
		return 0
	}
	return n
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%w: bad varint", errCorrupt)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = cmpErr(d.err, fmt.Errorf("%w: truncated", errCorrupt))
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) str() string { return string(d.strBytes()) }

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// defaultCacheDir is os.UserCacheDir()/ctxtrim.
func defaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locate cache directory: %w", err)
	}
	return filepath.Join(d, "ctxtrim"), nil
}
