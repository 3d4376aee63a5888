package slicer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// A request builder selects the repository context a task needs within the
// budget left for context, and gets a prompt whose exact token count never
// exceeds it.
func ExampleSelect() {
	dir, err := os.MkdirTemp("", "slicer-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"retry/retry.go": `package retry

// Do calls fn until it succeeds or attempts run out.
func Do(attempts int, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil {
			return nil
		}
	}
	return err
}
`,
		"http/client.go": `package http

import "example.com/shop/retry"

// Post sends body to url, retrying with retry.Do.
func Post(url string, body []byte) error {
	return retry.Do(3, func() error { return send(url, body) })
}

func send(url string, body []byte) error { return nil }
`,
		"report/report.go": "package report\n\n// Monthly renders the monthly sales report.\nfunc Monthly() string { return \"" + strings.Repeat("sales ", 400) + "\" }\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(src), 0o644)
	}

	ctx := context.Background()
	ix, err := index.New(ctx, &index.Options{Dir: dir, NoCache: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	const contextBudget = 400
	sel, err := slicer.Select(ctx, ix, "retry.Do loses the request body when Post retries", c,
		&slicer.SelectOptions{Budget: contextBudget})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range sel.Files {
		fmt.Println(f.Path, f.Granularity)
	}
	fmt.Println("within budget:", sel.Tokens <= contextBudget && c.Count(sel.Text) == sel.Tokens)
	fmt.Println("sales report left out:", !strings.Contains(sel.Text, "sales sales"))
	// Output:
	// retry/retry.go whole
	// http/client.go whole
	// within budget: true
	// sales report left out: true
}
