// Package shapes is a fixture for the Go extractor.
package shapes

import "fmt"

// Pi is a constant.
const Pi = 3.14

const (
	A = iota
	B
)

var registry = map[string]Shape{}

var (
	grouped = 1
	other   = "x"
)

// Shape is an interface.
type Shape interface {
	Area() float64
}

type Circle struct {
	Radius float64
}

type (
	ID          int
	List[T any] []T
)

// Area computes the area.
func (c *Circle) Area() float64 {
	return Pi * c.Radius * c.Radius
}

func (l List[T]) Len() int { return len(l) }

func NewCircle(r float64,
	name string) *Circle {
	var local = 1
	_ = local
	fmt.Println(name)
	return &Circle{Radius: r}
}
