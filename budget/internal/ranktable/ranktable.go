// Package ranktable is the on-disk layout of a tiktoken encoding's rank
// table (token bytes → rank), built once by a generator and then used in
// place: Open reads a few header fields and every lookup reads the bytes it
// needs straight from the string it was given, typically data embedded in
// the binary with //go:embed. Nothing is decoded, copied or allocated at
// start-up; the pages a lookup touches are mapped from the executable on
// first use.
//
// # Layout
//
// All integers are little-endian. A table of n tokens with 2^b slots is:
//
//	header   64 bytes: magic, n, b, the longest token's length, and the
//	         start of each section below (and the end of the last)
//	single   256 × uint32: the rank of each one-byte token
//	pair     65536 × uint32: at a<<8|b, 1 + the rank of the token "ab", or 0
//	keys     2^b × uint64: an open-addressing hash table, linear probing
//	ranks    2^b × uint32: the rank of the token whose key is in the slot
//	offs     (n+1) × uint32: token r's bytes are data[offs[r]:offs[r+1]]
//	data     the tokens' bytes, by rank
//
// Sections start at multiples of 64 bytes (cache lines).
//
// A slot's key is 0 when the slot is empty. A token of 1 to ShortMax bytes
// is its own key: its bytes packed little-endian with its length in the top
// byte, so that finding it takes one read of the keys section. A longer
// token's key is its 64-bit hash with the top byte set to 0xff (no short
// key has that length byte); a key match is then confirmed by comparing the
// token's bytes. A key's home slot is the top b bits of hash(key) for short
// tokens and of the byte hash itself for long ones. Slots are at most
// half full, so probes are short.
//
// single and pair answer the lookups of one and two bytes without hashing;
// byte-pair merging starts by looking up every adjacent pair of a piece.
//
// Open checks the header (magic, section sizes) in constant time but not
// the sections' contents, which come from Build: the tests of the package
// that embeds a table check every token against the ranks it was built from.
package ranktable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Magic opens every table; its last character is the format version.
const Magic = "ctxtrim ranks 1\n"

// ShortMax is the longest token that is its own key: 7 bytes and a length
// byte fill a uint64.
const ShortMax = 7

// longKeyTag marks the key of a token longer than ShortMax.
const longKeyTag = 0xff << 56

// Header fields, as byte offsets.
const (
	hdrTokens   = len(Magic)
	hdrSlotBits = hdrTokens + 4
	hdrMaxLen   = hdrSlotBits + 4
	hdrSections = hdrMaxLen + 4 // numSections+1 uint32 section starts
	headerSize  = 64
	numSections = 6 // single, pair, keys, ranks, offs, data
	align       = 64
)

// Section indexes, in order.
const (
	secSingle = iota
	secPair
	secKeys
	secRanks
	secOffs
	secData
)

// maxTokenLen bounds a token's length, so that offsets and lengths fit
// their fields with room to spare; tiktoken's tokens are at most 128 bytes.
const maxTokenLen = 1 << 16

// Table is a rank table read in place from a string laid out by Build. It
// is immutable and safe for concurrent use. The zero Table is not valid;
// use Open.
type Table struct {
	single, pair, keys, ranks, offs, data string
	n                                     int
	maxLen                                int
	shift                                 uint   // home slot = hash >> shift
	mask                                  uint64 // number of slots - 1
}

// Open returns the table laid out in s. It checks the header and the sizes
// of the sections, not their contents; s is used in place and must not
// change.
func Open(s string) (*Table, error) {
	if len(s) < headerSize || s[:len(Magic)] != Magic {
		return nil, errors.New("not a rank table (bad magic)")
	}
	n := int(le32(s[hdrTokens:]))
	b := uint(le32(s[hdrSlotBits:]))
	maxLen := int(le32(s[hdrMaxLen:]))
	if n < 256 || b < 9 || b > 30 || 1<<b < 2*n || maxLen < 2 || maxLen > maxTokenLen {
		return nil, fmt.Errorf("bad rank table header: %d tokens, 2^%d slots, longest %d bytes", n, b, maxLen)
	}
	var start [numSections + 1]int
	for i := range start {
		start[i] = int(le32(s[hdrSections+4*i:]))
	}
	slots := 1 << b
	if start[numSections] != len(s) {
		return nil, fmt.Errorf("bad rank table: %d bytes, header says %d", len(s), start[numSections])
	}
	// Each section but the last has a known size, and is followed by at
	// most align-1 bytes of padding.
	size := [numSections]int{256 * 4, 1 << 16 * 4, slots * 8, slots * 4, (n + 1) * 4, -1}
	var sec [numSections]string
	for i := range numSections {
		lo, hi := start[i], start[i+1]
		if size[i] < 0 {
			size[i] = hi - lo
		}
		if lo < headerSize || lo%align != 0 || hi < lo || hi > len(s) || hi-lo < size[i] || hi-lo-size[i] >= align {
			return nil, fmt.Errorf("bad rank table: section %d spans [%d, %d) of %d bytes", i, lo, hi, len(s))
		}
		sec[i] = s[lo : lo+size[i]]
	}
	t := &Table{
		single: sec[secSingle],
		pair:   sec[secPair],
		keys:   sec[secKeys],
		ranks:  sec[secRanks],
		offs:   sec[secOffs],
		data:   sec[secData],
		n:      n,
		maxLen: maxLen,
		shift:  64 - b,
		mask:   uint64(slots - 1),
	}
	if int(le32(t.offs[4*n:])) != len(t.data) {
		return nil, fmt.Errorf("bad rank table: data section of %d bytes, offsets end at %d", len(t.data), le32(t.offs[4*n:]))
	}
	return t, nil
}

// Len returns the number of tokens; their ranks are 0 to Len()-1.
func (t *Table) Len() int { return t.n }

// MaxLen returns the length in bytes of the longest token.
func (t *Table) MaxLen() int { return t.maxLen }

// Token returns the bytes of the token of rank r, 0 <= r < Len().
func (t *Table) Token(r int) string {
	return t.data[le32(t.offs[4*r:]):le32(t.offs[4*r+4:])]
}

// Single returns the rank of the one-byte token b; every byte is a token.
func (t *Table) Single(b byte) int { return int(le32(t.single[4*int(b):])) }

// Pair reports whether the two bytes ab are a token, and its rank.
func (t *Table) Pair(a, b byte) (int, bool) {
	v := le32(t.pair[4*(int(a)<<8|int(b)):])
	return int(v) - 1, v != 0
}

// Rank returns the rank of the token whose bytes are s.
func (t *Table) Rank(s string) (int, bool) {
	switch {
	case len(s) == 1:
		return t.Single(s[0]), true
	case len(s) == 2:
		return t.Pair(s[0], s[1])
	case len(s) == 0 || len(s) > t.maxLen:
		return 0, false
	}
	key, home := t.Key(s)
	return t.Find(s, key, home)
}

// Key returns the key of s (1 <= len(s) <= MaxLen()) and its home slot.
func (t *Table) Key(s string) (key, home uint64) {
	if len(s) <= ShortMax {
		key = shortKey(s)
		return key, hashWord(key) >> t.shift
	}
	h := hashBytes(s)
	return h | longKeyTag, h >> t.shift
}

// Slot returns the key held in slot i (0 <= i < the number of slots), 0 if
// the slot is empty.
func (t *Table) Slot(i uint64) uint64 { return le64(t.keys[8*i:]) }

// Short reports whether key is a short token's key: one that holds the
// token itself, so that a slot holding it settles a lookup without
// comparing bytes.
func Short(key uint64) bool { return key < longKeyTag }

// Find returns the rank of s, whose key and home slot are key and home
// (see Key), probing from its home slot.
func (t *Table) Find(s string, key, home uint64) (int, bool) {
	for i := home; ; i = (i + 1) & t.mask {
		v := t.Slot(i)
		if v == 0 {
			return 0, false
		}
		if v != key {
			continue
		}
		r := int(le32(t.ranks[4*i:]))
		if Short(key) || t.Token(r) == s {
			return r, true
		}
	}
}

// FindAt is Find for a lookup whose home slot has already been read and
// holds key: it returns the rank held there if that settles the lookup
// (always for a short key; for a long key when the bytes match), else
// probes on.
func (t *Table) FindAt(s string, key, home uint64) (int, bool) {
	r := int(le32(t.ranks[4*home:]))
	if Short(key) || t.Token(r) == s {
		return r, true
	}
	return t.Find(s, key, (home+1)&t.mask)
}

// shortKey packs s (1 to ShortMax bytes) little-endian with its length in
// the top byte, reading it in at most three loads.
func shortKey(s string) uint64 {
	n := len(s)
	var w uint64
	if n >= 4 {
		// Two overlapping 4-byte loads; the overlap ORs equal bytes.
		w = uint64(le32(s)) | uint64(le32(s[n-4:]))<<(8*(n-4))
	} else {
		w = uint64(s[0]) | uint64(s[n/2])<<(8*(n/2)) | uint64(s[n-1])<<(8*(n-1))
	}
	return w | uint64(n)<<56
}

// Hash constants (from wyhash); any odd 64-bit multipliers with good bit
// mixing would do: the table needs a deterministic, well-spread hash, and
// Build and the lookups must agree on it (a change is a new Magic).
const (
	hashK0 = 0xa0761d6478bd642f
	hashK1 = 0xe7037ed1a0b428db
	hashK2 = 0x8ebc6af09c88c6e3
)

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashWord hashes a short key.
func hashWord(w uint64) uint64 { return mix(w^hashK0, hashK1) }

// hashBytes hashes s, of at least 8 bytes, 8 bytes at a time; the last
// 8 bytes are read whole, overlapping the previous word when the length is
// not a multiple of 8 (the length is hashed too).
func hashBytes(s string) uint64 {
	h := uint64(len(s)) ^ hashK0
	last := s[len(s)-8:]
	for len(s) > 8 {
		h = mix(h^le64(s), hashK1)
		s = s[8:]
	}
	return mix(h^le64(last)^hashK2, hashK1)
}

func le32(s string) uint32 {
	s = s[:4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func le64(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// appendLE32 and appendLE64 are the writer's side of le32 and le64.
func appendLE32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendLE64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
