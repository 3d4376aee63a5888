package budget

import (
	_ "embed"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

//go:embed models.toml
var modelsTOML string

// TestBuiltinTableUpToDate checks that the generated builtinSpec
// (models_table.go) is what parsing models.toml gives, as a configuration
// file is parsed; go generate ./budget rewrites it.
func TestBuiltinTableUpToDate(t *testing.T) {
	var want TableSpec
	md, err := toml.Decode(modelsTOML, &want)
	if err != nil {
		t.Fatalf("models.toml: %v", err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		t.Errorf("models.toml: unknown keys %v", un)
	}
	if diff := cmp.Diff(want, builtinSpec()); diff != "" {
		t.Errorf("models_table.go is stale: run go generate ./budget (-models.toml +builtinSpec):\n%s", diff)
	}
}
