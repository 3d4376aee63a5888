package ranktable

import (
	"fmt"
	"math/bits"
)

// Build lays out the table of ranks, a map from token bytes to rank as
// tiktoken's loaders return it (github.com/pkoukk/tiktoken-go-loader's
// LoadTiktokenBpe). The ranks must be 0 to len(ranks)-1, each once, and
// every single byte must be a token, as in all tiktoken encodings. The
// output depends only on ranks, so a table can be checked in and compared
// with a fresh build.
func Build(ranks map[string]int) ([]byte, error) {
	n := len(ranks)
	if n < 256 {
		return nil, fmt.Errorf("%d tokens, want at least the 256 single bytes", n)
	}
	tokens := make([]string, n)
	seen := make([]bool, n)
	maxLen := 0
	for tok, r := range ranks {
		switch {
		case r < 0 || r >= n:
			return nil, fmt.Errorf("token %q has rank %d, outside 0..%d (ranks must be dense)", tok, r, n-1)
		case seen[r]:
			return nil, fmt.Errorf("rank %d is given to %q and %q", r, tokens[r], tok)
		case tok == "":
			return nil, fmt.Errorf("rank %d is the empty token", r)
		case len(tok) > maxTokenLen:
			return nil, fmt.Errorf("token of rank %d has %d bytes, more than %d", r, len(tok), maxTokenLen)
		}
		tokens[r], seen[r] = tok, true
		maxLen = max(maxLen, len(tok))
	}
	for b := range 256 {
		if _, ok := ranks[string([]byte{byte(b)})]; !ok {
			return nil, fmt.Errorf("byte %#02x is not a token", b)
		}
	}

	slotBits := uint(max(bits.Len(uint(2*n-1)), 9))
	slots := uint64(1) << slotBits
	t := &Table{shift: 64 - slotBits, mask: slots - 1, maxLen: maxLen, n: n}
	keys := make([]uint64, slots)
	slotRank := make([]uint32, slots)
	for r, tok := range tokens {
		key, i := t.Key(tok)
		for keys[i] != 0 {
			i = (i + 1) & t.mask
		}
		keys[i], slotRank[i] = key, uint32(r)
	}

	out := make([]byte, headerSize, headerSize+int(slots)*12+(n+1)*4+(1<<18)+n*8)
	var start [numSections + 1]int
	section := func(i int) {
		for len(out)%align != 0 {
			out = append(out, 0)
		}
		start[i] = len(out)
	}
	section(secSingle)
	for b := range 256 {
		out = appendLE32(out, uint32(ranks[string([]byte{byte(b)})]))
	}
	section(secPair)
	for ab := range 1 << 16 {
		r, ok := ranks[string([]byte{byte(ab >> 8), byte(ab)})]
		if !ok {
			r = -1
		}
		out = appendLE32(out, uint32(r+1))
	}
	section(secKeys)
	for _, k := range keys {
		out = appendLE64(out, k)
	}
	section(secRanks)
	for _, r := range slotRank {
		out = appendLE32(out, r)
	}
	section(secOffs)
	off := 0
	for _, tok := range tokens {
		out = appendLE32(out, uint32(off))
		off += len(tok)
	}
	out = appendLE32(out, uint32(off))
	section(secData)
	for _, tok := range tokens {
		out = append(out, tok...)
	}
	start[numSections] = len(out)

	copy(out, Magic)
	h := out[len(Magic):headerSize]
	clear(h)
	putLE32(out[hdrTokens:], uint32(n))
	putLE32(out[hdrSlotBits:], uint32(slotBits))
	putLE32(out[hdrMaxLen:], uint32(maxLen))
	for i, s := range start {
		putLE32(out[hdrSections+4*i:], uint32(s))
	}
	return out, nil
}

func putLE32(b []byte, v uint32) { appendLE32(b[:0], v) }
