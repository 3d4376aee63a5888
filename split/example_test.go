package split_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/split"
)

// A diff too large for one 400-token request is cut into parts that each
// fit, every part a diff on its own; Verify checks that nothing was lost.
// Parts 1 and 2 share api/handler.go evenly rather than filling part 1.
func ExampleSplit() {
	var diff strings.Builder
	for _, name := range []string{"api/handler.go", "api/handler_test.go", "store/db.go"} {
		fmt.Fprintf(&diff, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,2 +1,30 @@\n package p\n", name, name, name, name)
		for i := range 28 {
			fmt.Fprintf(&diff, "+// line %d of a new comment block in %s\n", i, name)
		}
		diff.WriteString(" // end\n")
	}
	in := split.Input{Kind: split.Diff, Sources: []split.Source{{Name: "change.diff", Text: diff.String()}}}
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		panic(err)
	}
	opts := &split.Options{Budget: 400, Instructions: "Review this part of the change."}
	res, err := split.Split(context.Background(), in, c, opts)
	if err != nil {
		panic(err)
	}
	for _, p := range res.Manifest.Parts {
		fmt.Printf("part %d: %d tokens:", p.Part, p.Tokens)
		for _, it := range p.Items {
			fmt.Printf(" %s lines %d-%d", it.Source, it.Lines[0], it.Lines[1])
		}
		fmt.Println()
	}
	fmt.Println("verify:", split.Verify(in, res, c, opts))
	// Part 2 continues api/handler.go: its header is repeated and the hunk
	// header recomputed, so the part applies on its own.
	lines := strings.SplitAfter(res.Parts[1].Payload, "\n")
	fmt.Print(strings.Join(lines[:6], ""))
	// Output:
	// part 1: 281 tokens: api/handler.go lines 1-19
	// part 2: 281 tokens: api/handler.go lines 20-34
	// part 3: 367 tokens: api/handler_test.go lines 35-57
	// part 4: 374 tokens: api/handler_test.go lines 58-68 store/db.go lines 69-80
	// part 5: 368 tokens: store/db.go lines 81-102
	// verify: <nil>
	// diff --git a/api/handler.go b/api/handler.go
	// --- a/api/handler.go
	// +++ b/api/handler.go
	// @@ -2,1 +16,15 @@
	// +// line 14 of a new comment block in api/handler.go
	// +// line 15 of a new comment block in api/handler.go
}
