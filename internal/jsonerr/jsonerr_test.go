package jsonerr

import (
	"encoding/json"
	"errors"
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
