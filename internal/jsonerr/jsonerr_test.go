package jsonerr

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestDescribe(t *testing.T) {
	type msg struct {
		Role    string `json:"role"`
		Content struct {
			Parts []string `json:"parts"`
		} `json:"content"`
		N int `json:"n"`
	}
	tests := []struct {
		name, in, want string
	}{
		{"element not an object", `3`, "got a JSON number, want an object"},
		{"string field", `{"role": 1}`, "role: got a JSON number, want a string"},
		{"nested array", `{"content": {"parts": {}}}`, "content.parts: got a JSON object, want an array"},
		{"integer", `{"n": "x"}`, "n: got a JSON string, want an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m msg
			err := Describe(json.Unmarshal([]byte(tc.in), &m))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Describe = %v, want %q", err, tc.want)
			}
		})
	}
	other := errors.New("unexpected end of JSON input")
	if got := Describe(other); got != other {
		t.Errorf("Describe changed a syntax error: %v", got)
	}
	if Describe(nil) != nil {
		t.Error("Describe(nil) != nil")
	}
}

// TestWant names the JSON for every kind a request or conversation field
// can have, through pointers, and for a type it does not know.
func TestWant(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[struct{}](), "an object"},
		{reflect.TypeFor[map[string]any](), "an object"},
		{reflect.TypeFor[[]int](), "an array"},
		{reflect.TypeFor[[2]int](), "an array"},
		{reflect.TypeFor[string](), "a string"},
		{reflect.TypeFor[**string](), "a string"},
		{reflect.TypeFor[bool](), "true or false"},
		{reflect.TypeFor[uint8](), "an integer"},
		{reflect.TypeFor[int64](), "an integer"},
		{reflect.TypeFor[float32](), "a number"},
		{reflect.TypeFor[chan int](), "another type"},
		{nil, "another type"},
	}
	for _, tc := range tests {
		if got := want(tc.typ); got != tc.want {
			t.Errorf("want(%v) = %q, want %q", tc.typ, got, tc.want)
		}
	}
	// Through encoding/json: a float field given a string, a bool given a number.
	var v struct {
		F  float64 `json:"f"`
		OK *bool   `json:"ok"`
	}
	for in, msg := range map[string]string{
		`{"f": "1.5"}`: "f: got a JSON string, want a number",
		`{"ok": 1}`:    "ok: got a JSON number, want true or false",
	} {
		if err := Describe(json.Unmarshal([]byte(in), &v)); err == nil || err.Error() != msg {
			t.Errorf("%s: Describe = %v, want %q", in, err, msg)
		}
	}
}
