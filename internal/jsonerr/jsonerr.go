// Package jsonerr words encoding/json's decoding errors for users: a type
// mismatch names the field and the JSON it expected ("content: got a JSON
// number, want a string") instead of a Go type ("cannot unmarshal number
// into Go struct field .content of type string", or a whole struct type
// for an element that is not an object). budget and history, which read
// request bodies and conversations, share it.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Describe returns err with a *json.UnmarshalTypeError inside it reworded;
// other errors are returned unchanged.
func Describe(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	msg := fmt.Sprintf("got a JSON %s, want %s", te.Value, want(te.Type))
	if te.Field != "" {
		msg = te.Field + ": " + msg
	}
	return errors.New(msg)
}

// want names the JSON that decodes into t.
func want(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another type"
}
