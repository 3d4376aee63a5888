// Package nonroot lets a test that needs file permissions to be enforced
// (a file at mode 000 that cannot be read) run as a user without root's
// override. As root, which CI containers and sandboxes often are, chmod
// 000 stops nothing, so such a test would pass without testing anything.
package nonroot

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// envChild marks the child process that Here starts; it holds the name of
// the test the child runs.
const envChild = "CTXTRIM_NONROOT_TEST"

// Here reports whether the calling test should go on in this process.
// Not as root (or in the child it started), it returns true. As root, it
// runs the same test again in a child process whose user is nobody (a
// user namespace mapping the current user to 65534 with unshare, else
// setpriv), fails t if the child fails, logs the child's output, and
// returns false: the caller returns at once. It skips t when no way to
// drop root is available.
func Here(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(envChild) == t.Name() {
		return true
	}
	var pattern []string
	for _, part := range strings.Split(t.Name(), "/") {
		pattern = append(pattern, "^"+regexp.QuoteMeta(part)+"$")
	}
	args := []string{os.Args[0], "-test.run=" + strings.Join(pattern, "/"), "-test.v", "-test.count=1"}
	wrappers := [][]string{
		{"unshare", "--user", "--map-user=65534", "--map-group=65534"},
		{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"},
	}
	for _, w := range wrappers {
		if _, err := exec.LookPath(w[0]); err != nil {
			continue
		}
		// A wrapper that cannot drop root here (no user namespaces, no
		// setpriv rights) fails before the test starts: try the next.
		probe := exec.Command(w[0], append(w[1:], "id", "-u")...)
		if out, err := probe.Output(); err != nil || strings.TrimSpace(string(out)) == "0" {
			continue
		}
		cmd := exec.Command(w[0], append(w[1:], args...)...)
		cmd.Env = append(os.Environ(), envChild+"="+t.Name())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		t.Logf("as nobody (%s):\n%s", w[0], out.String())
		if err != nil {
			t.Fatalf("the test failed as nobody: %v", err)
		}
		if !strings.Contains(out.String(), "--- PASS: "+t.Name()) && !strings.Contains(out.String(), "--- SKIP: "+t.Name()) {
			t.Fatalf("the child process did not run %s", t.Name())
		}
		return false
	}
	t.Skip("running as root and cannot drop it (neither unshare --user nor setpriv work): file permissions are not enforced")
	return false
}
