package slicer

import "math"

// This file keeps the packer's accounts: the context budget C split into
// the pools its passes spend (depth, breadth, the signature map, the
// fill), and what each pass spent. The ledger only does arithmetic; the
// passes (pack.go) choose the views and entries and charge it. See
// "Packing" in the package comment.

// ledger holds the context budget's pools as the packing passes spend
// them, in the order pack runs them:
//
//  1. depth allots from depth; what an allotment exceeds depth by comes
//     out of tail, then maps; what a view leaves of its allotment is
//     spare (takeDepth);
//  2. free opens as tail + depth + spare (openBreadth); the whole pass
//     spends it first (spendWhole), then breadth;
//  3. the map spends maps, and what it leaves joins free (closeMap);
//  4. the fill spends free, and a map entry its file's view replaces is
//     refunded to it; what is left goes back to maps (reopenMap), which
//     the map spends again.
//
// A ledger is made by newLedger for one packing; it is not safe for
// concurrent use. Every pool stays at least 0, as the passes only spend
// what fits.
type ledger struct {
	context  int     // C, the budget left after the task and the note
	top      float64 // s₁, the best candidate's score, which every share is relative to
	dominant bool    // the best file scores at least dominantRatio times the second

	depth   int // R: what depth allotments have not taken
	tail    int // the breadth reserve
	maps    int // the signature map's reserve
	tailCap int // the cap of one breadth view: tailFileShare of C, between minTail and maxTail
	spare   int // what depth views left of their allotments
	free    int // breadth's pool, then the fill's

	spent spent
}

// spent is what each pass of a ledger spent, in tokens: depth its
// allotments (what it charged, not what its views use), the others the
// tokens of what they added. A map entry refunded by the fill counts
// against maps.
type spent struct {
	depth, whole, breadth, maps, fill int
}

// newLedger splits the context budget c for cands, which are ranked best
// first and not empty: mapShare of it for the map, tailShare for breadth
// (dominantTailShare when the best file dominates), the rest for depth.
func newLedger(c int, cands []*ranked) *ledger {
	top := cands[0].signals.Score
	l := &ledger{
		context:  c,
		top:      top,
		dominant: len(cands) > 1 && top >= dominantRatio*cands[1].signals.Score,
	}
	tail := tailShare
	if l.dominant {
		tail = dominantTailShare
	}
	l.maps = int(float64(c) * mapShare)
	l.tail = int(float64(c) * tail)
	l.depth = c - l.maps - l.tail
	l.tailCap = min(maxTail, max(minTail, int(float64(c)*tailFileShare)))
	return l
}

// allot is the depth allotment of a file scoring rel of the best:
// share·rel^deepShareExp of what depth has left, share being deepMaxShare,
// or dominantShare for the best file when it dominates.
func (l *ledger) allot(rel float64, best bool) int {
	share := deepMaxShare
	if best && l.dominant {
		share = dominantShare
	}
	return int(share * math.Pow(rel, deepShareExp) * float64(l.depth))
}

// stretch is the room file r, scoring rel of the best, may take whole,
// which is also the room its excerpts get when not one fits alloc: at
// least alloc, else wholeStretch·rel^wholeStretchExp of depth's pool plus
// stretchReserve of the reserves, and at most 1 − wholeNextShare·(s_next/s)
// of that room when next, the next file to take a depth share, is not nil.
func (l *ledger) stretch(alloc int, rel float64, r, next *ranked) int {
	room := l.depth + int(stretchReserve*float64(l.tail+l.maps))
	stretch := max(alloc, int(wholeStretch*math.Pow(rel, wholeStretchExp)*float64(room)))
	if next != nil {
		left := 1 - wholeNextShare*next.signals.Score/r.signals.Score
		stretch = max(alloc, min(stretch, int(left*float64(room))))
	}
	return stretch
}

// takeDepth charges a depth view's allotment to depth's pool, and what
// the pool lacks to the breadth reserve, then the map's; what the view
// leaves of the allotment (alloc − used) is spare.
func (l *ledger) takeDepth(alloc, used int) {
	over := alloc - l.depth
	l.depth = max(0, l.depth-alloc)
	if over > 0 {
		t := min(over, l.tail)
		l.tail -= t
		l.maps = max(0, l.maps-(over-t))
	}
	l.spare += alloc - used
	l.spent.depth += alloc
}

// openBreadth moves what depth left (its pool and its views' spare) and
// the breadth reserve to free, the pool breadth spends.
func (l *ledger) openBreadth() {
	l.free = l.tail + l.depth + l.spare
	l.tail, l.depth, l.spare = 0, 0, 0
}

// spendWhole charges to free the n tokens a file shown whole adds to its
// excerpts (the whole pass).
func (l *ledger) spendWhole(n int) {
	l.free -= n
	l.spent.whole += n
}

// spendBreadth charges a breadth view's n tokens to free.
func (l *ledger) spendBreadth(n int) {
	l.free -= n
	l.spent.breadth += n
}

// spendMap charges n tokens of map entries to the map's pool.
func (l *ledger) spendMap(n int) {
	l.maps -= n
	l.spent.maps += n
}

// closeMap moves what the map left of its pool to free, for the fill.
func (l *ledger) closeMap() {
	l.free += l.maps
	l.maps = 0
}

// spendFill charges n tokens the fill adds to free.
func (l *ledger) spendFill(n int) {
	l.free -= n
	l.spent.fill += n
}

// refundMap returns a map entry's n tokens to free: the fill gave its file
// a view instead.
func (l *ledger) refundMap(n int) {
	l.free += n
	l.spent.maps -= n
}

// reopenMap moves what the fill left to the map's pool, for more entries.
func (l *ledger) reopenMap() {
	l.maps = l.free
	l.free = 0
}
