package budget

import (
	"errors"
	"math"
)

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
// with the exact counter under c (Exact(c)) and its result is scaled as c
// scales, once (ScaleCount), so that rounding up does not add up part by
// part. With an exact c it is count(c).
func Total(c Counter, count func(exact Counter) int) int {
	return ScaleCount(c, count(Exact(c)))
}

// Exact returns the exact counter under c: c itself unless c came from
// Scaled. A caller that adds counts up (a request's parts, the items a
// pruner drops) adds Exact(c)'s and scales the sum once with ScaleCount,
// as Total does, so that its sums agree with Total's.
func Exact(c Counter) Counter {
	if s, ok := c.(scaledCounter); ok {
		return s.c
	}
	return c
}

// ScaleCount returns c's count of a text that Exact(c) counts n tokens:
// n itself for an exact c, n × factor rounded up for a Scaled one. It is
// monotone in n.
func ScaleCount(c Counter, n int) int {
	if s, ok := c.(scaledCounter); ok {
		return s.countOf(n)
	}
	return n
}

// ExactLimit returns the largest count n of Exact(c) whose ScaleCount is at
// most limit: limit itself for an exact c. A text within ExactLimit(c,
// limit) exact tokens is within limit by c, and one over it is over, so a
// caller can work in exact counts throughout and compare once.
func ExactLimit(c Counter, limit int) int {
	s, ok := c.(scaledCounter)
	if !ok {
		return limit
	}
	n := int(math.Floor(float64(limit)/s.factor + 1e-9))
	for s.countOf(n) > limit { // guard against rounding
		n--
	}
	for s.countOf(n+1) <= limit {
		n++
	}
	return n
}
