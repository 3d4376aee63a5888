package budget

import "testing"

// FuzzLastSafeSplit checks the claim behind streaming: splitting at LastSafeSplit
// points does not change the count, under both encodings, with the
// reference counter.
func FuzzLastSafeSplit(f *testing.F) {
	for _, s := range []string{"a\nb", "}\n/x", "x\n\n\ny", "  \n\tz", "a \n'll", "1\n2", "é\nB", "x\r\nY", "<|endoftext|>\nz", "it's 12,345 o'clock", "HTTPServer42x", "a1b2c3 d4", "don'T x", "{\"a\":1,\"b\":[2,3]}", "e\u0301 x", "x_y-z.w", "abc'll9", "中文，测试。再来3个", "Ⅻ世纪Ⅻ", "é\u0301ü", "x\xe4\xb8y"} {
		f.Add(s)
	}
	var cs []Counter
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, err := NewReferenceCounter(enc)
		if err != nil {
			f.Fatal(err)
		}
		cs = append(cs, c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			t.Skip()
		}
		b := []byte(s)
		for _, c := range cs {
			for end := len(b); end > 0; {
				i := LastSafeSplit(b[:end])
				if i == 0 {
					break
				}
				if got, want := c.Count(s[:i])+c.Count(s[i:]), c.Count(s); got != want {
					t.Fatalf("split %q | %q: %d + %d != %d", s[:i], s[i:], c.Count(s[:i]), c.Count(s[i:]), want)
				}
				end = i - 1
			}
		}
	})
}
