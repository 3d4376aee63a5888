package budget

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLimitsInput(t *testing.T) {
	tests := []struct {
		name    string
		l       Limits
		want    int
		wantErr bool
		noFit   bool
	}{
		{"default margin", Limits{Window: 128000, Reserve: 16384}, 128000 - 16384 - 128000*DefaultMarginPercent/100, false, false},
		{"default margin rounds up", Limits{Window: 101}, 101 - 3, false, false},
		{"explicit margin", Limits{Window: 1000, Reserve: 100, Margin: 50}, 850, false, false},
		{"no margin", Limits{Window: 1000, Reserve: 100, Margin: NoMargin}, 900, false, false},
		{"reserve eats window", Limits{Window: 8192, Reserve: 8192}, 0, true, true},
		{"zero window", Limits{}, 0, true, false},
		{"negative window", Limits{Window: -1}, 0, true, false},
		{"absurd window", Limits{Window: maxWindow + 1}, 0, true, false},
		{"negative reserve", Limits{Window: 1000, Reserve: -1}, 0, true, false},
		{"negative margin", Limits{Window: 1000, Margin: -2}, 0, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.l.Input()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Input() = %d, %v; want error %v", got, err, tc.wantErr)
			}
			if errors.Is(err, ErrNoFit) != tc.noFit {
				t.Errorf("errors.Is(%v, ErrNoFit) = %v, want %v", err, !tc.noFit, tc.noFit)
			}
			if got != tc.want {
				t.Errorf("Input() = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestAllocate(t *testing.T) {
	const in = 1000
	rest := func(sys, task int) int { return in - sys - task }
	hist := func(sys, task int) int { return rest(sys, task) * HistoryShare / 100 }
	tests := []struct {
		name string
		need Sections
		want Sections
	}{
		{"everything fits", Sections{System: 10, Task: 20, History: 100, Context: 200}, Sections{10, 20, 100, 200}},
		{"both overflow: shares", Sections{System: 100, Task: 100, History: 5000, Context: 5000},
			Sections{100, 100, hist(100, 100), rest(100, 100) - hist(100, 100)}},
		{"small history gives to context", Sections{System: 100, Task: 100, History: 50, Context: 5000},
			Sections{100, 100, 50, rest(100, 100) - 50}},
		{"small context gives to history", Sections{System: 100, Task: 100, History: 5000, Context: 50},
			Sections{100, 100, rest(100, 100) - 50, 50}},
		{"pinned exactly fill", Sections{System: 500, Task: 500, History: 1, Context: 1}, Sections{500, 500, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Allocate(in, tc.need)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Allocate (-want +got):\n%s", diff)
			}
			if got.Total() > in {
				t.Errorf("Total %d > input %d", got.Total(), in)
			}
		})
	}
	if _, err := Allocate(in, Sections{System: 600, Task: 401}); !errors.Is(err, ErrNoFit) {
		t.Errorf("pinned overflow: err = %v, want ErrNoFit", err)
	}
	if _, err := Allocate(-1, Sections{}); err == nil {
		t.Error("negative input: no error")
	}
	if _, err := Allocate(in, Sections{History: -1}); err == nil {
		t.Error("negative need: no error")
	}
}

// FuzzAllocate checks the invariants: no section above its need, total
// within the input, pinned sections granted in full.
func FuzzAllocate(f *testing.F) {
	f.Add(1000, 10, 20, 300, 4000)
	f.Add(0, 0, 0, 0, 0)
	f.Fuzz(func(t *testing.T, in, sys, task, hist, ctx int) {
		need := Sections{System: sys, Task: task, History: hist, Context: ctx}
		got, err := Allocate(in, need)
		if err != nil {
			return
		}
		if got.Total() > in || got.History > hist || got.Context > ctx || got.System != sys || got.Task != task || got.History < 0 || got.Context < 0 {
			t.Fatalf("Allocate(%d, %+v) = %+v", in, need, got)
		}
	})
}
