package budget

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Counter counts the tokens of a text. Implementations are safe for
// concurrent use and treat special-token text (such as "<|endoftext|>") as
// ordinary text.
type Counter interface {
	Count(text string) int
}

// Encoding names known to NewEncodingCounter and NewReferenceCounter.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

var knownEncodings = []string{Cl100kBase, O200kBase}

// loaderOnce installs the offline rank loader in tiktoken-go. The loader is
// process-wide state owned by tiktoken-go, not by this package; installing
// the same offline loader more than once is harmless, Once only saves work.
var loaderOnce sync.Once

// referenceCounter counts with github.com/pkoukk/tiktoken-go, the reference
// every faster path is checked against.
type referenceCounter struct{ enc *tiktoken.Tiktoken }

func (r referenceCounter) Count(text string) int { return len(r.enc.EncodeOrdinary(text)) }

// NewReferenceCounter returns a Counter backed by tiktoken-go with its ranks
// loaded offline. It is exact but slow to start; use it as a reference. It
// reports its encoding to EncodingOf.
func NewReferenceCounter(encoding string) (Counter, error) {
	if !isKnownEncoding(encoding) {
		return nil, fmt.Errorf("unknown encoding %q (known: %s)", encoding, strings.Join(knownEncodings, ", "))
	}
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("load encoding %s: %w", encoding, err)
	}
	return encodingCounter{referenceCounter{enc}, encoding}, nil
}

func isKnownEncoding(name string) bool {
	i := sort.SearchStrings(knownEncodings, name)
	return i < len(knownEncodings) && knownEncodings[i] == name
}

// NewEncodingCounter returns an exact Counter for a tiktoken encoding
// (o200k_base, cl100k_base). It is safe for concurrent use, and reports its
// encoding to EncodingOf.
//
// The counter is the fast path of bpe.go: a regexp-free pre-tokenizer,
// one rank lookup per piece, and parallel counting of long texts. It counts
// exactly what NewReferenceCounter counts. The encoding's rank table is
// read in place from the executable: there is nothing to build.
func NewEncodingCounter(encoding string) (Counter, error) {
	c, err := newBPECounter(encoding)
	if err != nil {
		return nil, err
	}
	return encodingCounter{c, encoding}, nil
}
