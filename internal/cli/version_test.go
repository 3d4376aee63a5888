package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionLineWithoutRevision: a development build that stamped no
// revision (go build -buildvcs=false) says the revision is unknown and
// why, instead of a bare "(devel)"; a module version needs no revision.
func TestVersionLineWithoutRevision(t *testing.T) {
	got := versionLine(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/ctxtrim/ctxtrim", Version: "(devel)"}})
	if want := "ctxtrim (devel) (unknown revision (built with -buildvcs=false, or outside a git checkout); go1.26.8)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := versionLine(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}}); strings.Contains(got, "unknown") {
		t.Errorf("a module version: %q, want no unknown revision", got)
	}
}
