package budget

import "errors"

// The encoding a counter counts with, and counting a whole request with an
// estimate counter.

// ErrNilCounter is returned by the functions of every ctxtrim package
// that take a Counter when they are given nil.
var ErrNilCounter = errors.New("nil budget.Counter: pass one from NewEncodingCounter, NewCounter or Model.Counter")

// encodingCounter is an exact counter that knows its encoding's name, so
// that request accounting can pick the encoding's chat overhead
// (OverheadOf).
type encodingCounter struct {
	Counter
	name string
}

// Encoding returns the tiktoken encoding's name.
func (e encodingCounter) Encoding() string { return e.name }

// EncodingOf returns the tiktoken encoding c counts with: that of a
// counter from NewEncodingCounter or NewReferenceCounter, also under
// Scaled, or of any Counter with an Encoding() string method; "" when c
// does not say.
func EncodingOf(c Counter) string {
	switch c := c.(type) {
	case scaledCounter:
		return EncodingOf(c.c)
	case interface{ Encoding() string }:
		return c.Encoding()
	}
	return ""
}

// Total counts a text made of parts, such as a request: count is called
// with the exact counter under c (c itself unless c came from Scaled) and
// its result is scaled as c scales, once, so that rounding up does not add
// up part by part. With an exact c it is count(c).
func Total(c Counter, count func(exact Counter) int) int {
	if s, ok := c.(scaledCounter); ok {
		return s.countOf(count(s.c))
	}
	return count(c)
}
