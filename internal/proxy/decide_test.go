package proxy

import (
	"errors"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

func TestCheckListen(t *testing.T) {
	for _, tc := range []struct {
		addr  string
		allow bool
		ok    bool
	}{
		{"127.0.0.1:7878", false, true},
		{"localhost:0", false, true},
		{"[::1]:7878", false, true},
		{"127.1.2.3:80", false, true},
		{":7878", false, false},
		{"0.0.0.0:7878", false, false},
		{"192.168.1.5:7878", false, false},
		{"0.0.0.0:7878", true, true},
		{"7878", false, false},
	} {
		err := CheckListen(tc.addr, tc.allow)
		if (err == nil) != tc.ok {
			t.Errorf("CheckListen(%q, %v) = %v", tc.addr, tc.allow, err)
		}
		if err != nil && tc.addr != "7878" && !errors.Is(err, ErrRemoteListen) {
			t.Errorf("CheckListen(%q): %v does not wrap ErrRemoteListen", tc.addr, err)
		}
	}
}

// The upstream's path is joined with the request's, without repeating /v1.
func TestRewrite(t *testing.T) {
	for _, tc := range []struct{ upstream, path, want string }{
		{"https://api.openai.com", "/v1/responses", "https://api.openai.com/v1/responses"},
		{"https://api.openai.com/v1", "/v1/responses", "https://api.openai.com/v1/responses"},
		{"https://api.openai.com/v1/", "/v1/chat/completions?x=1", "https://api.openai.com/v1/chat/completions?x=1"},
		{"http://127.0.0.1:8080/proxy", "/v1/messages", "http://127.0.0.1:8080/proxy/v1/messages"},
		{"https://api.openai.com/v1", "/healthz2", "https://api.openai.com/v1/healthz2"},
	} {
		p, err := New(&Options{Upstream: tc.upstream})
		if err != nil {
			t.Fatal(err)
		}
		in := httptest.NewRequest("POST", tc.path, nil)
		in.Header.Set("Accept-Encoding", "br")
		out := in.Clone(in.Context())
		p.rewrite(&httputil.ProxyRequest{In: in, Out: out})
		if got := out.URL.String(); got != tc.want || out.Header.Get("Accept-Encoding") != "" {
			t.Errorf("%s + %s = %s, want %s", tc.upstream, tc.path, got, tc.want)
		}
	}
	for _, bad := range []string{"", "api.openai.com", "ftp://x", "http://"} {
		if _, err := New(&Options{Upstream: bad}); err == nil {
			t.Errorf("New with upstream %q: want an error", bad)
		}
	}
	_ = url.URL{}
}
