package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary re-executes itself inside a new network namespace
// ("unshare -n") to run the stub model server and a client command side by
// side on that namespace's loopback: nothing else is reachable from there.
const (
	helperEnv    = "CTXTRIM_E2E_HELPER"
	helperNetns  = "netns"
	stubAddrEnv  = "CTXTRIM_E2E_STUB_ADDR"
	stubWinEnv   = "CTXTRIM_E2E_STUB_WINDOW"
	stubLogEnv   = "CTXTRIM_E2E_STUB_LOG"
	stubAddr     = "127.0.0.1:18080" // any port: the namespace is ours alone
	helperFailed = 97                // exit code when the helper itself fails
)

// netnsHelper brings up loopback, serves the stub on it and runs args (a
// command) with the process's streams; it returns the command's exit code.
func netnsHelper(args []string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "e2e netns helper:", err)
		return helperFailed
	}
	if len(args) == 0 {
		return fail(errors.New("no command"))
	}
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fail(fmt.Errorf("ip link set lo up: %v: %s", err, out))
	}
	window, err := strconv.Atoi(os.Getenv(stubWinEnv))
	if err != nil {
		return fail(fmt.Errorf("%s: %v", stubWinEnv, err))
	}
	logf, err := os.OpenFile(os.Getenv(stubLogEnv), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fail(err)
	}
	defer logf.Close()
	ln, err := net.Listen("tcp", os.Getenv(stubAddrEnv))
	if err != nil {
		return fail(err)
	}
	stub, err := newStub(window, logf)
	if err != nil {
		return fail(err)
	}
	srv := &http.Server{Handler: stub}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())

	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return fail(err)
	}
	return 0
}

// netns runs shell scripts inside a loopback-only network namespace with a
// stub model server of a given window.
type netns struct {
	unshare []string // the unshare command line prefix
	self    string   // this test binary
}

// needNetns returns a netns runner; it fails the test when unshare cannot
// make a network namespace here (the clients must never reach the network).
func needNetns(t *testing.T) *netns {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatal("unshare is not installed (util-linux): cannot isolate the client's network")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("ip is not installed (iproute2): cannot bring up loopback in the namespace")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range [][]string{{"unshare", "-n"}, {"unshare", "-r", "-n"}} {
		probe := append(append([]string{}, prefix...), "ip", "link", "set", "lo", "up")
		if r := runCmd(t, 30*time.Second, "", nil, "", probe[0], probe[1:]...); r.code == 0 {
			return &netns{unshare: prefix, self: self}
		}
	}
	t.Fatal("unshare -n (and unshare -r -n) cannot create a network namespace here")
	return nil
}

// run executes script with sh inside the namespace, the stub serving window
// tokens at stubAddr and logging to logPath.
func (n *netns) run(t *testing.T, timeout time.Duration, dir string, env []string, window int, logPath, script string) result {
	t.Helper()
	args := append(append([]string{}, n.unshare[1:]...), n.self, "sh", "-c", script)
	env = append(env,
		helperEnv+"="+helperNetns,
		stubAddrEnv+"="+stubAddr,
		stubWinEnv+"="+strconv.Itoa(window),
		stubLogEnv+"="+logPath,
	)
	r := runCmd(t, timeout, dir, env, "", n.unshare[0], args...)
	if r.code == helperFailed {
		t.Fatalf("netns helper failed: %s", r)
	}
	return r
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
