package cli

import (
	"flag"
	"fmt"
	"runtime/debug"
	"strings"
)

func runVersion(e *env, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, err := parseFlags(e, fs, args, "ctxtrim version (or ctxtrim --version)",
		"Prints the module version ctxtrim was built as and the VCS revision it was built from\n(with \"modified\" when the work tree had uncommitted changes), from the build info;\n\"unknown revision\" when the build stamped none (go build -buildvcs=false).")
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError(fmt.Errorf("version takes no arguments, got %q", pos[0]))
	}
	info, _ := debug.ReadBuildInfo()
	_, err = fmt.Fprintln(e.stdout, versionLine(info))
	return err
}

// versionLine renders the build info: "ctxtrim v1.2.0 (revision 0a1b…,
// 2025-06-01T10:00:00Z, modified; go1.26.8)". go install of a tagged
// version gives the module version; go build in a checkout gives
// "(devel)" and the VCS settings git stamps. info may be nil.
func versionLine(info *debug.BuildInfo) string {
	if info == nil {
		return "ctxtrim (unknown version: built without module support)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var parts []string
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	switch r := settings["vcs.revision"]; {
	case r != "":
		parts = append(parts, "revision "+r)
	case v != "(devel)":
		// A module version (go install …@v1.2.0) names the source.
	default:
		// go build -buildvcs=false (which go does not record), outside
		// a checkout, or where go could not run git: say so rather
		// than print a bare "(devel)".
		parts = append(parts, "unknown revision (built with -buildvcs=false, or outside a git checkout)")
	}
	if t := settings["vcs.time"]; t != "" {
		parts = append(parts, t)
	}
	if settings["vcs.modified"] == "true" {
		parts = append(parts, "modified")
	}
	tail := info.GoVersion
	if len(parts) > 0 {
		tail = strings.Join(parts, ", ") + "; " + tail
	}
	return fmt.Sprintf("ctxtrim %s (%s)", v, tail)
}
