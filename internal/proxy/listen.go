package proxy

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// ErrRemoteListen is wrapped by CheckListen's error for an address that is
// not loopback-only.
var ErrRemoteListen = errors.New("listen address is not loopback")

// CheckListen accepts a listen address (host:port) that only this machine
// can reach: localhost, 127.0.0.0/8 or ::1. Any other address, an empty
// host (all interfaces) included, is refused unless allowRemote: the proxy
// forwards its clients' credentials and has no authentication of its own,
// so anything that can reach it can spend them.
func CheckListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w (want host:port, e.g. 127.0.0.1:7878)", addr, err)
	}
	if allowRemote || isLoopback(host) {
		return nil
	}
	what := host
	if what == "" {
		what = "every interface"
	}
	return fmt.Errorf("%w: %q listens on %s, where other machines can reach it and spend the credentials it forwards; use 127.0.0.1, or put an authenticating proxy in front and pass -allow-remote", ErrRemoteListen, addr, what)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
