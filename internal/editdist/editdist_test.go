package editdist

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"kitten", "sitting", 3}, {"abc", "", 3}, {"", "ab", 2}, {"flaw", "lawn", 2}, {"same", "same", 0},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"gpt-4o", "gpt-4.1", "gpt-4", "o3", "claude-sonnet-4-5"}
	got := Closest("gpt-4p", names, 2, 3)
	if diff := cmp.Diff([]string{"gpt-4o", "gpt-4"}, got); diff != "" {
		t.Errorf("Closest (-want +got):\n%s", diff)
	}
	if got := Closest("zzzzzzzzzz", names, 3, 2); len(got) != 0 {
		t.Errorf("Closest of a far word = %q, want none", got)
	}
}

// FuzzDistance: the distance is a metric bounded by the longer length.
func FuzzDistance(f *testing.F) {
	f.Add("kitten", "sitting", "mitten")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		if len(a)+len(b)+len(c) > 300 {
			return
		}
		ab, bc, ac := Distance(a, b), Distance(b, c), Distance(a, c)
		if ab > max(len(a), len(b)) || ab < 0 || (ab == 0) != (a == b) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, ab)
		}
		if ac > ab+bc {
			t.Fatalf("triangle: d(a,c)=%d > d(a,b)=%d + d(b,c)=%d", ac, ab, bc)
		}
	})
}
