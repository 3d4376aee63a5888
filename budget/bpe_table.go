package budget

import (
	"bytes"
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
// Layout: the tokens' bytes are decoded into data; token r is
// data[spans[r]>>32 : uint32(spans[r])]; tokens of up to shortKey bytes
// are also packed in words[r], which is all a lookup of a short piece reads. The .tiktoken files list tokens by
// increasing rank from 0, one per line, so the rank is the line index
// (checked while parsing). slots is an open-addressing hash table with
// linear probing, cut into tablePartitions partitions chosen by the top bits
// of the token's 64-bit hash h; within its partition a token's home slot is
// taken from the bits of h>>32, and a non-zero slot holds h>>32<<32 | rank+1.
// Flat slices instead of a Go map with 200k string keys make the build one
// pass over the file with no per-token allocation, and the partitions let it
// run on several cores, each filling a partition small enough to stay in its
// cache (see parseRankTable).
type rankTable struct {
	data      []byte
	spans     []uint64
	words     []uint64 // words[r] is token r's short key (see tokenKey)
	slots     []uint64
	partShift uint   // h >> partShift is the partition
	partBits  uint   // log2 of a partition's size
	partMask  uint64 // a partition's size - 1
	// single[b] is the rank of the one-byte token b; every byte is a token.
	single [256]uint32
}

// tablePartitions is the number of hash-table partitions: a power of two
// large enough that a partition of o200k_base's table (4 MB in all) fits in
// a core's L2 cache, which makes the random writes of the build cheap.
const tablePartitions = 8

// tables holds the lazily built rank tables, one per encoding. This is the
// package's only package-level state: each table is immutable once built, is
// built at most once per process (sync.OnceValues), and caching it is what
// lets every Counter share the ~8 MB table instead of rebuilding it; no
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

// tableSegment is the part of a .tiktoken file that one goroutine decodes.
type tableSegment struct {
	start, end int // bytes of the file
	first      int // index of its first line
	// lists[p] holds the slot values of its tokens in partition p.
	lists  [tablePartitions][]uint64
	single [256]uint32 // rank+1 of the one-byte tokens it holds
	err    error
}

// parseRankTable parses .tiktoken text, lines "<base64 token> <rank>", on up
// to procs goroutines. Phase 1 cuts the text into segments of whole lines,
// one per goroutine; each decodes its tokens into its own region of data
// (a line's token takes less than 3/4 of the line's bytes, so regions
// starting at 3/4 of each segment's offset never overlap), hashes them and
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
		data:  make([]byte, len(raw)),
		spans: make([]uint64, n),
		words: make([]uint64, n),
		slots: make([]uint64, size),
	}
	t.partBits = uint(bits.TrailingZeros64(size / tablePartitions))
	t.partShift = 64 - uint(bits.TrailingZeros64(tablePartitions))
	t.partMask = size/tablePartitions - 1

	var wg sync.WaitGroup
	for k := range segs {
		seg := &segs[k]
		wg.Go(func() { seg.err = t.decodeSegment(raw, seg) })
	}
	wg.Wait()
	for i := range t.single {
		t.single[i] = ^uint32(0)
	}
	for k := range segs {
		if segs[k].err != nil {
			return nil, segs[k].err
		}
		for b, r := range segs[k].single {
			if r != 0 {
				t.single[b] = r - 1
			}
		}
	}
	for b, r := range t.single {
		if r == ^uint32(0) {
			return nil, fmt.Errorf("byte %#x has no rank", b)
		}
	}

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

// decodeSegment decodes the lines of raw[seg.start:seg.end] into t.data
// from offset seg.start*3/4 and fills their spans and seg's lists.
func (t *rankTable) decodeSegment(raw []byte, seg *tableSegment) error {
	src := raw[seg.start:seg.end]
	w := seg.start * 3 / 4
	limit := seg.end * 3 / 4
	if seg.end == len(raw) {
		limit = len(t.data)
	}
	dst := t.data[:limit]
	line := seg.first
	i := 0
	for i < len(src) {
		start := w
		// Base64 groups up to the space.
		for {
			if i+4 > len(src) || w+3 > len(dst) {
				return fmt.Errorf("line %d: truncated", line+1)
			}
			a, b, c, d := b64[src[i]], b64[src[i+1]], b64[src[i+2]], b64[src[i+3]]
			if (a|b|c|d)&0xc0 == 0 {
				v := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(d)
				dst[w], dst[w+1], dst[w+2] = byte(v>>16), byte(v>>8), byte(v)
				w += 3
				i += 4
				if i < len(src) && src[i] == ' ' {
					break
				}
				continue
			}
			// A last group with padding: "xx==" or "xxx=".
			if src[i+3] != '=' || (a|b)&0xc0 != 0 {
				return fmt.Errorf("line %d: bad base64", line+1)
			}
			v := uint32(a)<<18 | uint32(b)<<12
			dst[w] = byte(v >> 16)
			w++
			if src[i+2] != '=' {
				if c&0xc0 != 0 {
					return fmt.Errorf("line %d: bad base64", line+1)
				}
				v |= uint32(c) << 6
				dst[w] = byte(v >> 8)
				w++
			}
			i += 4
			if i >= len(src) || src[i] != ' ' {
				return fmt.Errorf("line %d: bad base64", line+1)
			}
			break
		}
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
		tok := dst[start:w]
		if len(tok) == 1 {
			seg.single[tok[0]] = uint32(rank) + 1
		}
		h, key := tokenKey(tok)
		t.words[line] = key
		p := h >> t.partShift
		seg.lists[p] = append(seg.lists[p], h>>32<<32|uint64(rank+1))
		t.spans[line] = uint64(start)<<32 | uint64(w)
		line++
	}
	return nil
}

// rank returns the rank of the token whose bytes are s.
func (t *rankTable) rank(s string) (int, bool) {
	if len(s) == 1 {
		return int(t.single[s[0]]), true
	}
	h, w := tokenKey(s)
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
		if w != 0 {
			if t.words[r] == w {
				return int(r), true
			}
			continue
		}
		sp := t.spans[r]
		if string(t.data[sp>>32:uint32(sp)]) == s {
			return int(r), true
		}
	}
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

// shortKey is the longest token length that tokenKey packs into a word.
const shortKey = 7

// tokenKey returns the hash of a token's bytes and, for tokens of at most
// shortKey bytes, the bytes packed little-endian with the length in the top
// byte (a word that equals another only for equal bytes); 0 for longer ones.
func tokenKey[T ~string | ~[]byte](s T) (h, w uint64) {
	if len(s) <= shortKey {
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
		w |= uint64(len(s)) << 56
		return mix(w^hashK0, hashK1), w
	}
	h = uint64(len(s)) ^ hashK0
	for len(s) >= 8 {
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = mix(h^x, hashK1)
		s = s[8:]
	}
	var x uint64
	for i := len(s) - 1; i >= 0; i-- {
		x = x<<8 | uint64(s[i])
	}
	return mix(h^x^hashK2, hashK1), 0
}
