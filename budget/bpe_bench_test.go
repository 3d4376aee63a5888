package budget

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as the fresh-process probe of scripts/bench-tokenizers.sh.
// With BUDGET_COUNT_PROBE set the test binary runs no test: it loads the
// counter of BUDGET_COUNT_ENCODING ("fast": NewEncodingCounter,
// "fast-serial": the same on one goroutine, "reference": tiktoken-go,
// "noop": nothing, for the bare process cost), counts the files listed in
// BUDGET_COUNT_FILES (path-list separated), prints the total and exits,
// as a ctxtrim process would. With BUDGET_COUNT_THROUGHPUT=N it counts N
// times and prints the best counting time alone (the table already loaded),
// for MB/s figures; BUDGET_COUNT_CONCAT=1 counts the files as one text.
func TestMain(m *testing.M) {
	if mode := os.Getenv("BUDGET_COUNT_PROBE"); mode != "" {
		os.Exit(countProbe(mode))
	}
	os.Exit(m.Run())
}

func countProbe(mode string) int {
	enc := os.Getenv("BUDGET_COUNT_ENCODING")
	var (
		c   Counter
		err error
	)
	switch mode {
	case "fast":
		c, err = NewEncodingCounter(enc)
	case "fast-serial":
		var b *bpeCounter
		b, err = newBPECounter(enc)
		c = serialCounter{b}
	case "reference":
		c, err = NewReferenceCounter(enc)
	case "noop":
		fmt.Println(0)
		return 0
	default:
		err = fmt.Errorf("unknown probe mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 1
	}
	var texts []string
	size := 0
	for _, f := range filepath.SplitList(os.Getenv("BUDGET_COUNT_FILES")) {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "probe:", err)
			return 1
		}
		texts = append(texts, string(b))
		size += len(b)
	}
	if os.Getenv("BUDGET_COUNT_CONCAT") != "" {
		texts = []string{strings.Join(texts, "")}
	}
	reps, _ := strconv.Atoi(os.Getenv("BUDGET_COUNT_THROUGHPUT"))
	var best, bestCPU time.Duration
	n := 0
	for r := 0; r < max(reps, 1); r++ {
		start, startCPU := time.Now(), processCPU()
		n = 0
		for _, t := range texts {
			n += c.Count(t)
		}
		d, dCPU := time.Since(start), processCPU()-startCPU
		if r == 0 || d < best {
			best = d
		}
		if r == 0 || dCPU < bestCPU {
			bestCPU = dCPU
		}
	}
	if reps > 0 {
		// The same format as the node script of scripts/bench-tokenizers.sh.
		fmt.Printf("%d tokens %d bytes, wall %.1f ms %.2f MB/s, CPU %.1f ms %.2f MB/s\n", n, size,
			best.Seconds()*1e3, float64(size)/1e6/best.Seconds(),
			bestCPU.Seconds()*1e3, float64(size)/1e6/bestCPU.Seconds())
		return 0
	}
	fmt.Println(n)
	return 0
}

// processCPU returns the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serialCounter counts on the calling goroutine only.
type serialCounter struct{ c *bpeCounter }

func (s serialCounter) Count(text string) int { return s.c.countSerial(text) }

// benchText returns about size bytes of real text: Go standard library
// sources, with a Chinese and a Russian paragraph mixed in.
func benchText(b *testing.B, size int) string {
	b.Helper()
	files := []string{"net/http/server.go", "go/parser/parser.go", "fmt/print.go", "strings/strings.go"}
	root := goRoot(b)
	var buf bytes.Buffer
	for buf.Len() < size {
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(root, "src", f))
			if err != nil {
				b.Skipf("no Go sources to benchmark on: %v", err)
			}
			buf.Write(data)
			buf.WriteString("\n这是一个用于测试分词器速度的中文段落，包含标点符号和数字123。\nЭто русский текст для проверки скорости токенизатора.\n")
		}
	}
	return buf.String()[:size]
}

func BenchmarkCount100KB(b *testing.B) {
	text := benchText(b, 100<<10)
	for _, enc := range testEncodings {
		fast, ref := counters(b, enc)
		for _, c := range []struct {
			name string
			c    Counter
		}{{"fast", serialCounter{fast}}, {"reference", ref}} {
			b.Run(enc+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					c.c.Count(text)
				}
			})
		}
	}
}

func BenchmarkCountParallel(b *testing.B) {
	text := benchText(b, 4<<20)
	fast, _ := counters(b, O200kBase)
	for _, c := range []struct {
		name string
		c    Counter
	}{{"serial", serialCounter{fast}}, {"parallel", fast}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c.c.Count(text)
			}
		})
	}
}
