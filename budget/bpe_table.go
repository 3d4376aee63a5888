package budget

import (
	"bytes"
	"fmt"
	"math/bits"
	"sync"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// rankTable maps a token's bytes to its rank (its token id). It is built once
// from the offline .tiktoken assets of github.com/pkoukk/tiktoken-go-loader
// and never modified afterwards, so it is safe for concurrent use.
//
// Layout: all tokens' bytes are concatenated in data, in rank order; token r
// is data[off[r]:off[r+1]]. The .tiktoken files list tokens by increasing
// rank starting at 0, one per line, so the rank is the line index (checked
// while parsing). slots is an open-addressing hash table with linear probing:
// each non-zero slot holds the upper 32 bits of the token's hash and rank+1.
// This is a few flat slices instead of a Go map with 200k string keys, so
// building it costs one pass over the file and no per-token allocation.
type rankTable struct {
	data  []byte
	off   []uint32
	slots []uint64
	mask  uint64
	// single[b] is the rank of the one-byte token b; every byte is a token.
	single [256]uint32
}

// tables holds the lazily built rank tables, one per encoding. This is the
// package's only package-level state: each table is immutable once built, is
// built at most once per process (sync.OnceValues), and caching it is what
// lets every Counter share the ~5 MB table instead of rebuilding it; no
// caller can observe or change it other than through timing.
var tables = map[string]func() (*rankTable, error){
	Cl100kBase: sync.OnceValues(func() (*rankTable, error) { return loadRankTable(Cl100kBase) }),
	O200kBase:  sync.OnceValues(func() (*rankTable, error) { return loadRankTable(O200kBase) }),
}

// loadRankTable reads and indexes the embedded ranks of an encoding.
func loadRankTable(encoding string) (*rankTable, error) {
	name := encoding + ".tiktoken"
	raw, err := assets.Assets.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read ranks %s: %w", name, err)
	}
	t, err := parseRankTable(raw)
	if err != nil {
		return nil, fmt.Errorf("parse ranks %s: %w", name, err)
	}
	return t, nil
}

// parseRankTable parses .tiktoken text: lines "<base64 token> <rank>".
func parseRankTable(raw []byte) (*rankTable, error) {
	n := bytes.Count(raw, []byte{'\n'}) + 1
	t := &rankTable{
		// Decoded tokens are 3/4 the size of their base64 text, which is
		// itself less than the file.
		data: make([]byte, 0, len(raw)*3/4),
		off:  make([]uint32, 1, n+1),
	}
	size := uint64(1) << bits.Len(uint(2*n))
	t.slots = make([]uint64, size)
	t.mask = size - 1
	for i := range t.single {
		t.single[i] = ^uint32(0)
	}
	line := 0
	for len(raw) > 0 {
		var l []byte
		if j := bytes.IndexByte(raw, '\n'); j >= 0 {
			l, raw = raw[:j], raw[j+1:]
		} else {
			l, raw = raw, nil
		}
		if len(l) == 0 {
			continue
		}
		sp := bytes.IndexByte(l, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("line %d: no space", line+1)
		}
		rank, ok := atoi(l[sp+1:])
		if !ok || rank != line {
			return nil, fmt.Errorf("line %d: rank %q, want %d (ranks must be the line index)", line+1, l[sp+1:], line)
		}
		start := len(t.data)
		var err error
		t.data, err = appendBase64(t.data, l[:sp])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line+1, err)
		}
		tok := t.data[start:]
		t.off = append(t.off, uint32(len(t.data)))
		if len(tok) == 1 {
			t.single[tok[0]] = uint32(rank)
		}
		h := hashBytes(tok)
		slot := h & t.mask
		for t.slots[slot] != 0 {
			slot = (slot + 1) & t.mask
		}
		t.slots[slot] = h&^0xffffffff | uint64(rank+1)
		line++
	}
	for b, r := range t.single {
		if r == ^uint32(0) {
			return nil, fmt.Errorf("byte %#x has no rank", b)
		}
	}
	return t, nil
}

// rank returns the rank of the token whose bytes are s.
func (t *rankTable) rank(s string) (int, bool) {
	if len(s) == 1 {
		return int(t.single[s[0]]), true
	}
	h := hashString(s)
	tag := h &^ 0xffffffff
	for slot := h & t.mask; ; slot = (slot + 1) & t.mask {
		v := t.slots[slot]
		if v == 0 {
			return 0, false
		}
		if v&^0xffffffff == tag {
			r := uint32(v) - 1
			if string(t.data[t.off[r]:t.off[r+1]]) == s {
				return int(r), true
			}
		}
	}
}

func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// b64 maps a standard base64 character to its 6-bit value, 0xff otherwise.
var b64 = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// appendBase64 appends the decoding of padded standard base64 src to dst.
func appendBase64(dst, src []byte) ([]byte, error) {
	if len(src)%4 != 0 || len(src) == 0 {
		return dst, fmt.Errorf("bad base64 length %d", len(src))
	}
	pad := 0
	if src[len(src)-1] == '=' {
		pad++
		if src[len(src)-2] == '=' {
			pad++
		}
	}
	for i := 0; i < len(src); i += 4 {
		a, b, c, d := b64[src[i]], b64[src[i+1]], b64[src[i+2]], b64[src[i+3]]
		last := i+4 == len(src)
		if last && pad > 0 {
			c2, d2 := c, d
			if pad == 2 {
				c2 = 0
			}
			d2 = 0
			if a|b|c2|d2 == 0xff || a|b|c2|d2 > 63 {
				return dst, fmt.Errorf("bad base64 %q", src)
			}
			v := uint32(a)<<18 | uint32(b)<<12 | uint32(c2)<<6
			dst = append(dst, byte(v>>16))
			if pad == 1 {
				dst = append(dst, byte(v>>8))
			}
			break
		}
		if (a|b|c|d)&0xc0 != 0 {
			return dst, fmt.Errorf("bad base64 %q", src)
		}
		v := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(d)
		dst = append(dst, byte(v>>16), byte(v>>8), byte(v))
	}
	return dst, nil
}

// Hash constants (from wyhash); any odd 64-bit multipliers with good bit
// mixing would do: the table only needs a deterministic, well-spread hash.
const (
	hashK0 = 0xa0761d6478bd642f
	hashK1 = 0xe7037ed1a0b428db
	hashK2 = 0x8ebc6af09c88c6e3
)

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashString hashes s; hashBytes(b) == hashString(string(b)).
func hashString(s string) uint64 {
	h := uint64(len(s)) ^ hashK0
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = mix(h^w, hashK1)
		s = s[8:]
	}
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	return mix(h^w^hashK2, hashK1)
}

func hashBytes(b []byte) uint64 {
	h := uint64(len(b)) ^ hashK0
	for len(b) >= 8 {
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		h = mix(h^w, hashK1)
		b = b[8:]
	}
	var w uint64
	for i := len(b) - 1; i >= 0; i-- {
		w = w<<8 | uint64(b[i])
	}
	return mix(h^w^hashK2, hashK1)
}
