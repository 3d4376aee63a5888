package slicer

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scored returns candidates with the given scores, best first.
func scored(scores ...float64) []*ranked {
	cands := make([]*ranked, len(scores))
	for k, s := range scores {
		cands[k] = &ranked{file: k, signals: Signals{Score: s}}
	}
	return cands
}

// TestLedgerSplit: the context budget C is split into the map's reserve
// int(C·mapShare), the breadth reserve int(C·tailShare) (int(C·
// dominantTailShare) when the best file scores at least dominantRatio
// times the second), and the rest R for depth; one breadth view is capped
// at C·tailFileShare, between minTail and maxTail.
func TestLedgerSplit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		c      int
		cands  []*ranked
		tail   float64
		capped int
	}{
		{"small", 1000, scored(1, 0.9), tailShare, minTail},
		{"medium", 10000, scored(1, 0.9), tailShare, int(10000 * tailFileShare)},
		{"large", 40000, scored(1, 0.9), tailShare, maxTail},
		{"dominant", 10000, scored(1, 1/dominantRatio), dominantTailShare, int(10000 * tailFileShare)},
		{"alone", 10000, scored(1), tailShare, int(10000 * tailFileShare)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLedger(tc.c, tc.cands)
			maps := int(float64(tc.c) * mapShare)
			tail := int(float64(tc.c) * tc.tail)
			want := [4]int{tc.c - maps - tail, tail, maps, tc.capped}
			if diff := cmp.Diff(want, [4]int{l.depth, l.tail, l.maps, l.tailCap}); diff != "" {
				t.Errorf("newLedger(%d) pools [depth tail maps tailCap] (-want +got):\n%s", tc.c, diff)
			}
		})
	}
}

// TestLedgerDepthShares: the best file is allotted deepMaxShare of R
// (dominantShare when it dominates), the next deepMaxShare·rel^
// deepShareExp of what the first left; the stretch is wholeStretch·
// rel^wholeStretchExp of R plus stretchReserve of the reserves, at most
// 1 − wholeNextShare·(s_next/s) of that room.
func TestLedgerDepthShares(t *testing.T) {
	const c = 10000
	l := newLedger(c, scored(1, 0.9))
	r := l.depth
	a1 := l.allot(1, true)
	if want := int(deepMaxShare * float64(r)); a1 != want {
		t.Errorf("best file's allotment = %d, want deepMaxShare·R = %d", a1, want)
	}
	room := r + int(stretchReserve*float64(l.tail+l.maps))
	next := &ranked{signals: Signals{Score: 0.9}}
	best := &ranked{signals: Signals{Score: 1}}
	if got, want := l.stretch(a1, 1, best, nil), int(wholeStretch*float64(room)); got != want {
		t.Errorf("stretch without a next file = %d, want wholeStretch·room = %d", got, want)
	}
	if got, want := l.stretch(a1, 1, best, next), max(a1, int((1-wholeNextShare*0.9)*float64(room))); got != want {
		t.Errorf("stretch before a file at 0.9 = %d, want max(A, (1 − wholeNextShare·0.9)·room) = %d", got, want)
	}
	l.takeDepth(a1, a1)
	if got, want := l.allot(0.5, false), int(deepMaxShare*math.Pow(0.5, deepShareExp)*float64(r-a1)); got != want {
		t.Errorf("second file's allotment at 0.5 = %d, want deepMaxShare·0.5^deepShareExp·(R − A₁) = %d", got, want)
	}

	d := newLedger(c, scored(1, 1/dominantRatio))
	if got, want := d.allot(1, true), int(dominantShare*float64(d.depth)); got != want {
		t.Errorf("dominant best file's allotment = %d, want dominantShare·R = %d", got, want)
	}
	if got, want := d.allot(1, false), int(deepMaxShare*float64(d.depth)); got != want {
		t.Errorf("a file below a dominant best is allotted %d, want deepMaxShare·R = %d", got, want)
	}
}

// TestLedgerBreadthGetsWhatDepthLeaves: breadth's pool is the breadth
// reserve, what depth's allotments left of R and what depth's views left
// of their allotments. An allotment beyond R (a whole file within the
// stretch) comes out of the breadth reserve, then the map's.
func TestLedgerBreadthGetsWhatDepthLeaves(t *testing.T) {
	const c = 10000
	maps := int(c * mapShare)
	tail := int(c * tailShare)
	r := c - maps - tail
	for _, tc := range []struct {
		name              string
		charges           [][2]int // alloc, used
		wantFree, wantMap int
	}{
		{"nothing", nil, tail + r, maps},
		{"within R", [][2]int{{r / 2, r/2 - 100}, {r / 4, r / 4}}, tail + (r - r/2 - r/4) + 100, maps},
		{"into the breadth reserve", [][2]int{{r + 50, r}}, (tail - 50) + 0 + 50, maps},
		{"into the map's reserve", [][2]int{{r + tail + 30, r + tail + 30}}, 0, maps - 30},
		{"past every reserve", [][2]int{{r + tail + maps + 30, r + tail + maps + 30}}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLedger(c, scored(1, 0.9))
			spent := 0
			for _, ch := range tc.charges {
				l.takeDepth(ch[0], ch[1])
				spent += ch[0]
			}
			l.openBreadth()
			if l.free != tc.wantFree || l.maps != tc.wantMap {
				t.Errorf("after depth: breadth's pool %d, the map's %d; want %d, %d", l.free, l.maps, tc.wantFree, tc.wantMap)
			}
			if l.spent.depth != spent {
				t.Errorf("depth spent %d, want %d", l.spent.depth, spent)
			}
		})
	}
}

// TestMapPass: the map pass alone. In rank order it adds an entry for
// each file with definitions that has no view and no entry, while one
// fits its pool, and returns what they cost; run again on what the fill
// leaves, it adds only the files it skipped. What the map leaves goes to
// the fill, and what the fill leaves back to the map.
func TestMapPass(t *testing.T) {
	files := map[string]string{}
	for k := range 5 {
		files[fmt.Sprintf("m%d/m.go", k)] = fmt.Sprintf("package m%d\n\n// Retry%d retries the request.\nfunc Retry%d() {}\n\n// Wait%d waits.\nfunc Wait%d() {}\n", k, k, k, k, k)
	}
	ix, read := memIndex(t, files)
	p, rk, _, err := prepare(context.Background(), ix, "retry the request", testCounter(t), &SelectOptions{Budget: 4000, ReadFile: read, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rk) != len(files) {
		t.Fatalf("ranked %d files, want %d", len(rk), len(files))
	}
	p.reset()
	var cands []*ranked
	for k := range rk {
		rk[k].signals.Score = 1 - 0.1*float64(k)
		cands = append(cands, &rk[k])
	}
	cost := make([]int, len(cands))
	for k, r := range cands {
		cost[k] = p.mapEntry(r).tokens
	}
	p.chosen[cands[0].file] = true // a view: no entry

	l := newLedger(4000, cands)
	l.maps = cost[1] + cost[2] + minMapEntry - 1 // two entries, and too little for a third
	mapOf := map[int]int{}
	l.spendMap(p.addMaps(cands, mapOf, l.maps))
	if got := entryPaths(p); !cmp.Equal(got, []string{ix.Files[cands[1].file].Path, ix.Files[cands[2].file].Path}) {
		t.Errorf("map pass over cost[1]+cost[2]+minMapEntry−1 tokens: entries %v, want files 1 and 2", got)
	}
	if want := minMapEntry - 1; l.maps != want || l.spent.maps != cost[1]+cost[2] {
		t.Errorf("map pass left %d and spent %d, want minMapEntry−1 = %d and %d", l.maps, l.spent.maps, want, cost[1]+cost[2])
	}

	l.openBreadth()
	free := l.free
	l.closeMap()
	if l.free != free+minMapEntry-1 || l.maps != 0 {
		t.Errorf("closeMap: free %d, map %d; want %d, 0", l.free, l.maps, free+minMapEntry-1)
	}
	l.free = cost[3] + cost[4] // what the fill left
	l.reopenMap()
	l.spendMap(p.addMaps(cands, mapOf, l.maps))
	want := []string{ix.Files[cands[1].file].Path, ix.Files[cands[2].file].Path, ix.Files[cands[3].file].Path, ix.Files[cands[4].file].Path}
	if diff := cmp.Diff(want, entryPaths(p)); diff != "" {
		t.Errorf("map pass again over cost[3]+cost[4]: entries (-want +got):\n%s", diff)
	}
	if l.maps != 0 || l.free != 0 {
		t.Errorf("after the map again: map's pool %d, free %d; want 0, 0", l.maps, l.free)
	}
}

// entryPaths lists the paths of p's map entries, in order.
func entryPaths(p *packer) []string {
	var out []string
	for _, m := range p.maps {
		out = append(out, m.path)
	}
	return out
}
