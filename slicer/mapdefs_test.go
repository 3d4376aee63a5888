package slicer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mapTestNames are the tests of mapDefsRepo's context_test.go, in file
// order: ClientIP is the 25th, past the first maxMapDefs.
var mapTestNames = []string{
	"Reset", "Handlers", "Keys", "Set", "Get", "MustGet", "GetString", "GetBool",
	"GetInt", "GetFloat", "GetTime", "GetDuration", "GetStringSlice", "Copy", "HandlerName", "FullPath",
	"Param", "Query", "DefaultQuery", "PostForm", "FormFile", "MultipartForm", "SaveUploadedFile", "BindJSON",
	"ClientIP", "RemoteIP", "ContentType", "Abort", "Negotiate", "Render",
}

// mapDefsRepo is a repository of one test file of 30 tests and its
// source, whose 30 methods make it a file whose members the map lists only
// when the task hits them.
func mapDefsRepo() map[string]string {
	var tests, src strings.Builder
	tests.WriteString("package gin\n\nimport \"testing\"\n")
	src.WriteString("package gin\n\n// Context carries a request.\ntype Context struct{ keys map[string]any }\n\n// New returns a Context.\nfunc New() *Context { return &Context{} }\n")
	for _, n := range mapTestNames {
		fmt.Fprintf(&tests, "\nfunc TestContext%s(t *testing.T) {\n\tc := New()\n\tif got := c.%s(); got != \"\" {\n\t\tt.Errorf(\"%s = %%q\", got)\n\t}\n}\n", n, n, n)
		fmt.Fprintf(&src, "\n// %s is a method.\nfunc (c *Context) %s() string { return \"\" }\n", n, n)
	}
	return map[string]string{"context_test.go": tests.String(), "context.go": src.String()}
}

// testSigs returns the signatures of the tests named, in that order.
func testSigs(names ...string) []string {
	out := make([]string, len(names))
	for k, n := range names {
		out[k] = "func TestContext" + n + "(t *testing.T)"
	}
	return out
}

// TestMapDefsTaskFirst: a map entry lists first the definitions the task
// names, then those its words hit, by their terms' weight, then the rest
// in file order, within the same maxMapDefs lines. It listed the first
// maxMapDefs definitions, whatever the task.
func TestMapDefsTaskFirst(t *testing.T) {
	ix, read := memIndex(t, mapDefsRepo())
	c := testCounter(t)
	first := mapTestNames[:maxMapDefs]
	tests := []struct {
		name, task, path string
		want             []string
	}{{
		// The named test first; RemoteIP next, the one other test whose
		// body holds a word of the task (ip); then file order.
		name: "named test",
		task: "TestContextClientIP fails behind a proxy",
		path: "context_test.go",
		want: testSigs(append([]string{"ClientIP", "RemoteIP"}, first[:maxMapDefs-2]...)...),
	}, {
		// Not named, only words: the test holding two of them (remote,
		// ip) before the one holding one.
		name: "words",
		task: "the remote ip is wrong behind a proxy",
		path: "context_test.go",
		want: testSigs(append([]string{"RemoteIP", "ClientIP"}, first[:maxMapDefs-2]...)...),
	}, {
		// A frame points into GetBool (the 8th test: lines 54-59): before
		// the tests the task's words hit.
		name: "frame",
		task: "panic at context_test.go:56 in the remote ip lookup",
		path: "context_test.go",
		want: testSigs(append([]string{"GetBool", "RemoteIP", "ClientIP"}, slices.DeleteFunc(slices.Clone(first[:maxMapDefs-2]), func(n string) bool { return n == "GetBool" })...)...),
	}, {
		// Nothing of the task in the file: file order, as before.
		name: "no hit",
		task: "zebra giraffe",
		path: "context_test.go",
		want: testSigs(first...),
	}, {
		// A method of a file with more than maxMapDefs definitions, listed
		// only when hit, before the top-level definitions.
		name: "member named",
		task: "ClientIP ignores the header",
		path: "context.go",
		// RemoteIP, hit by ip, next; the field keys, a member, is not.
		want: []string{"func (c *Context) ClientIP() string", "func (c *Context) RemoteIP() string", "type Context struct{ keys map[string]any }", "func New() *Context"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, rk, _, err := prepare(context.Background(), ix, tc.task, c, &SelectOptions{Budget: 4000, ReadFile: read, Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			p.reset()
			i := -1
			for k := range ix.Files {
				if ix.Files[k].Path == tc.path {
					i = k
				}
			}
			r := &ranked{file: i} // as ranked, with the lines the task's mentions point at, when it ranks
			for k := range rk {
				if rk[k].file == i {
					r = &rk[k]
				}
			}
			got := p.mapEntry(r).sigs
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("map entry of %s for %q (-want +got):\n%s", tc.path, tc.task, diff)
			}
		})
	}
}
