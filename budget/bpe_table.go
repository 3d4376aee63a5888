package budget

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// rankTable maps a token's bytes to its rank (its token id). It is built once
// from the offline .tiktoken assets of github.com/pkoukk/tiktoken-go-loader
// and never modified afterwards, so it is safe for concurrent use.
//
// The table is keyed by the tokens' base64 text as it stands in the file, so
// building it decodes nothing: a lookup encodes the piece instead (a few
// nanoseconds), which moves work from every process start to the pieces
// actually looked up. Standard padded base64 is a bijection, so comparing
// encodings is comparing bytes.
//
// Layout: raw is the .tiktoken text; token r's base64 text is
// raw[spans[r]>>32 : uint32(spans[r])]. The files list tokens by increasing
// rank from 0, one per line, so the rank is the line index (checked while
// parsing). Tokens of at most shortToken bytes have at most 8 base64
// characters, packed little-endian into words[r]; a lookup of such a piece
// reads only its slot and that word. slots is an open-addressing hash table
// with linear probing, cut into tablePartitions partitions chosen by the top
// bits of the key's 64-bit hash h; within its partition a key's home slot is
// taken from the bits of h>>32, and a non-zero slot holds h>>32<<32 | rank+1.
// Flat slices instead of a Go map with 200k string keys make the build one
// pass over the file with no per-token allocation, and the partitions let it
// run on several cores, each filling a block small enough to stay in its
// cache (see parseRankTable).
type rankTable struct {
	raw       []byte
	spans     []uint64
	words     []uint64
	slots     []uint64
	partShift uint   // h >> partShift is the partition
	partBits  uint   // log2 of a partition's size
	partMask  uint64 // a partition's size - 1
	maxLen    int    // the longest token, in bytes
	// pair[a<<8|b] is 1 + the rank of the two-byte token ab, or 0: the
	// byte-pair merge starts by looking up every adjacent pair of bytes,
	// and this 256 KB table answers those from the cache.
	pair []uint32
	// single[b] is the rank of the one-byte token b; every byte is a token.
	single [256]uint32
}

// shortToken is the longest token whose base64 text (8 characters) fits in
// a word.
const shortToken = 6

// maxKey bounds the base64 text of a token the lookup encodes on the stack;
// tokens are at most 128 bytes (172 characters) in both encodings, longer
// ones are rejected by parseRankTable.
const maxKey = 256

// tablePartitions is the number of hash-table partitions: a power of two
// large enough that a partition of o200k_base's table (4 MB in all) fits in
// a core's L2 cache, which makes the random writes of the build cheap.
const tablePartitions = 8

// tables holds the lazily built rank tables, one per encoding. This is the
// package's only package-level state: each table is immutable once built, is
// built at most once per process (sync.OnceValues), and caching it is what
// lets every Counter share the ~12 MB table instead of rebuilding it; no
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
	t, err := parseRankTable(raw, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, fmt.Errorf("parse ranks %s: %w", name, err)
	}
	return t, nil
}

// tableSegment is the part of a .tiktoken file that one goroutine indexes.
type tableSegment struct {
	start, end int // bytes of the file
	first      int // index of its first line
	// lists[p] holds the slot values of its tokens in partition p.
	lists  [tablePartitions][]uint64
	single [256]uint32 // rank+1 of the one-byte tokens it holds
	maxKey int         // its longest base64 text
	err    error
}

// parseRankTable indexes .tiktoken text, lines "<base64 token> <rank>", on
// up to procs goroutines. Phase 1 cuts the text into segments of whole
// lines, one per goroutine; each hashes its keys into spans and words and
// sorts their slot values by partition. Phase 2 fills the hash table one
// partition per goroutine at a time, so no two goroutines write the same
// memory and each writes within a cache-sized block.
func parseRankTable(raw []byte, procs int) (*rankTable, error) {
	for len(raw) > 0 && raw[len(raw)-1] == '\n' {
		raw = raw[:len(raw)-1]
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("no ranks")
	}
	procs = max(1, min(procs, tablePartitions))
	segs := make([]tableSegment, procs)
	n := 0
	for k := range segs {
		start := 0
		if k > 0 {
			start = segs[k-1].end
		}
		end := len(raw)
		if k < procs-1 {
			end = start + (len(raw)-start)/(procs-k)
			if j := bytes.IndexByte(raw[end:], '\n'); j >= 0 {
				end += j + 1
			} else {
				end = len(raw)
			}
		}
		segs[k].start, segs[k].end, segs[k].first = start, end, n
		lines := bytes.Count(raw[start:end], []byte{'\n'})
		if end == len(raw) && end > start {
			lines++ // the last line has no newline
		}
		n += lines
		for p := range segs[k].lists {
			segs[k].lists[p] = make([]uint64, 0, lines/tablePartitions+lines/(4*tablePartitions)+16)
		}
	}
	size := max(uint64(1)<<bits.Len(uint(2*n)), 2*tablePartitions)
	t := &rankTable{
		raw:   raw,
		spans: make([]uint64, n),
		words: make([]uint64, n),
		slots: make([]uint64, size),
		pair:  make([]uint32, 1<<16),
	}
	t.partBits = uint(bits.TrailingZeros64(size / tablePartitions))
	t.partShift = 64 - uint(bits.TrailingZeros64(tablePartitions))
	t.partMask = size/tablePartitions - 1

	var wg sync.WaitGroup
	for k := range segs {
		seg := &segs[k]
		wg.Go(func() { seg.err = t.indexSegment(seg) })
	}
	wg.Wait()
	for i := range t.single {
		t.single[i] = ^uint32(0)
	}
	longest := 0
	for k := range segs {
		if segs[k].err != nil {
			return nil, segs[k].err
		}
		for b, r := range segs[k].single {
			if r != 0 {
				t.single[b] = r - 1
			}
		}
		longest = max(longest, segs[k].maxKey)
	}
	for b, r := range t.single {
		if r == ^uint32(0) {
			return nil, fmt.Errorf("byte %#x has no rank", b)
		}
	}
	if longest > maxKey {
		return nil, fmt.Errorf("a token has %d base64 characters, more than %d", longest, maxKey)
	}
	t.maxLen = longest / 4 * 3

	var next atomic.Int64
	for range procs {
		wg.Go(func() {
			for {
				p := next.Add(1) - 1
				if p >= tablePartitions {
					return
				}
				base := uint64(p) << t.partBits
				part := t.slots[base : base+t.partMask+1]
				for k := range segs {
					for _, v := range segs[k].lists[p] {
						i := v >> 32 & t.partMask
						for part[i] != 0 {
							i = (i + 1) & t.partMask
						}
						part[i] = v
					}
				}
			}
		})
	}
	wg.Wait()
	return t, nil
}

// indexSegment indexes the lines of raw[seg.start:seg.end]: their spans,
// words, slot values and one-byte tokens.
func (t *rankTable) indexSegment(seg *tableSegment) error {
	src := t.raw[:seg.end]
	line := seg.first
	for i := seg.start; i < len(src); line++ {
		start := i
		// Keys are padded base64, a multiple of 4 characters long, so the
		// space can only follow a group of 4.
		for i += 4; i < len(src) && src[i] != ' '; i += 4 {
		}
		if i >= len(src) {
			return fmt.Errorf("line %d: bad base64 key %q", line+1, src[start:])
		}
		key := src[start:i]
		i++ // the space
		rank, digits := 0, 0
		for ; i < len(src) && src[i] != '\n'; i++ {
			c := src[i] - '0'
			if c > 9 || digits == 9 {
				return fmt.Errorf("line %d: bad rank", line+1)
			}
			rank = rank*10 + int(c)
			digits++
		}
		i++ // the newline
		if digits == 0 || rank != line {
			return fmt.Errorf("line %d: rank %d, want %d (ranks must be the line index)", line+1, rank, line)
		}
		var h uint64
		if len(key) <= 8 {
			var w uint64
			if start+8 <= len(src) {
				w = binary.LittleEndian.Uint64(src[start:]) & (^uint64(0) >> (64 - 8*len(key)))
			} else {
				for j := len(key) - 1; j >= 0; j-- {
					w = w<<8 | uint64(key[j])
				}
			}
			t.words[line] = w
			h = hashWord(w)
			if len(key) == 4 && key[3] == '=' {
				a, b, c := b64[key[0]], b64[key[1]], b64[key[2]]
				switch {
				case key[2] == '=' && (a|b)&0xc0 == 0:
					seg.single[a<<2|b>>4] = uint32(rank) + 1
				case (a|b|c)&0xc0 == 0:
					// Two bytes; segments hold distinct tokens, so
					// they write distinct entries.
					t.pair[uint32(a)<<10|uint32(b)<<4|uint32(c)>>2] = uint32(rank) + 1
				default:
					return fmt.Errorf("line %d: bad base64 key %q", line+1, key)
				}
			}
		} else {
			h = hashKey(key)
		}
		seg.maxKey = max(seg.maxKey, len(key))
		p := h >> t.partShift
		seg.lists[p] = append(seg.lists[p], h>>32<<32|uint64(rank+1))
		t.spans[line] = uint64(start)<<32 | uint64(start+len(key))
	}
	return nil
}

// rank returns the rank of the token whose bytes are s.
func (t *rankTable) rank(s string) (int, bool) {
	switch {
	case len(s) == 1:
		return int(t.single[s[0]]), true
	case len(s) == 2:
		r := t.pair[uint32(s[0])<<8|uint32(s[1])]
		return int(r) - 1, r != 0
	case len(s) <= shortToken:
		w := base64Word(s)
		return t.find(hashWord(w), w, nil)
	case len(s) > t.maxLen:
		return 0, false
	}
	var buf [maxKey]byte
	key := base64Encode(buf[:0], s)
	return t.find(hashKey(key), 0, key)
}

// home returns the index of the home slot of a key with hash h.
func (t *rankTable) home(h uint64) uint64 {
	return (h>>t.partShift)<<t.partBits + (h >> 32 & t.partMask)
}

// find returns the rank of the key with hash h: the short key packed in w
// when key is nil, else the base64 text key.
func (t *rankTable) find(h, w uint64, key []byte) (int, bool) {
	tag := h >> 32
	base := (h >> t.partShift) << t.partBits
	for i := tag & t.partMask; ; i = (i + 1) & t.partMask {
		v := t.slots[base+i]
		if v == 0 {
			return 0, false
		}
		if v>>32 != tag {
			continue
		}
		r := uint32(v) - 1
		if key == nil {
			if t.words[r] == w {
				return int(r), true
			}
			continue
		}
		sp := t.spans[r]
		if string(t.raw[sp>>32:uint32(sp)]) == string(key) {
			return int(r), true
		}
	}
}

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// b64 maps a standard base64 character to its 6-bit value, 0xff otherwise.
var b64 = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(b64Alphabet) {
		t[b64Alphabet[i]] = byte(i)
	}
	return t
}()

// base64Word returns the padded standard base64 text of s (at most
// shortToken bytes) packed little-endian into a word, as a line of a
// .tiktoken file holds it.
func base64Word(s string) uint64 {
	var w uint64
	shift := 0
	for len(s) > 0 {
		var v uint32
		n := min(len(s), 3)
		for j := range 3 {
			v <<= 8
			if j < n {
				v |= uint32(s[j])
			}
		}
		w |= uint64(b64Alphabet[v>>18&63])<<shift | uint64(b64Alphabet[v>>12&63])<<(shift+8)
		c, d := uint64('='), uint64('=')
		if n > 1 {
			c = uint64(b64Alphabet[v>>6&63])
		}
		if n > 2 {
			d = uint64(b64Alphabet[v&63])
		}
		w |= c<<(shift+16) | d<<(shift+24)
		shift += 32
		s = s[n:]
	}
	return w
}

// base64Encode appends the padded standard base64 text of s to dst.
func base64Encode(dst []byte, s string) []byte {
	for len(s) >= 3 {
		v := uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2])
		dst = append(dst, b64Alphabet[v>>18&63], b64Alphabet[v>>12&63], b64Alphabet[v>>6&63], b64Alphabet[v&63])
		s = s[3:]
	}
	switch len(s) {
	case 1:
		v := uint32(s[0]) << 16
		dst = append(dst, b64Alphabet[v>>18&63], b64Alphabet[v>>12&63], '=', '=')
	case 2:
		v := uint32(s[0])<<16 | uint32(s[1])<<8
		dst = append(dst, b64Alphabet[v>>18&63], b64Alphabet[v>>12&63], b64Alphabet[v>>6&63], '=')
	}
	return dst
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

// hashWord hashes a key of at most 8 characters packed into a word.
func hashWord(w uint64) uint64 { return mix(w^hashK0, hashK1) }

// hashKey hashes a key longer than 8 characters.
func hashKey(k []byte) uint64 {
	h := uint64(len(k)) ^ hashK0
	for len(k) >= 8 {
		x := uint64(k[0]) | uint64(k[1])<<8 | uint64(k[2])<<16 | uint64(k[3])<<24 |
			uint64(k[4])<<32 | uint64(k[5])<<40 | uint64(k[6])<<48 | uint64(k[7])<<56
		h = mix(h^x, hashK1)
		k = k[8:]
	}
	var x uint64
	for i := len(k) - 1; i >= 0; i-- {
		x = x<<8 | uint64(k[i])
	}
	return mix(h^x^hashK2, hashK1)
}
