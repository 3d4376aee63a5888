package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// member is one key of a JSON object with its value's original bytes, in
// source order. Objects are kept as member lists so that re-encoding an
// edited object keeps every other key, in its place, byte for byte.
type member struct {
	key string
	val json.RawMessage
}

// parseObject splits a JSON object into its members without decoding the
// values. It fails unless raw is exactly one object. The values are
// slices of raw, not copies: a rollout of half a gigabyte is held once,
// whatever is parsed out of it (json.Decoder copied every value, twice).
func parseObject(raw []byte) ([]member, error) {
	i, err := openValue(raw, '{')
	if err != nil {
		return nil, err
	}
	var ms []member
	i = skipSpace(raw, i+1)
	if raw[i] == '}' {
		return ms, nil
	}
	for {
		end := skipValue(raw, i) // a key: raw is valid, so a string
		key, err := decodeKey(raw[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(raw, skipSpace(raw, end)+1) // past ':'
		end = skipValue(raw, i)
		ms = append(ms, member{key, json.RawMessage(raw[i:end:end])})
		i = skipSpace(raw, end)
		if raw[i] == '}' {
			return ms, nil
		}
		i = skipSpace(raw, i+1) // past ','
	}
}

// parseArray splits a JSON array into its elements' original bytes,
// slices of raw as parseObject's values are.
func parseArray(raw []byte) ([]json.RawMessage, error) {
	i, err := openValue(raw, '[')
	if err != nil {
		return nil, err
	}
	var out []json.RawMessage
	i = skipSpace(raw, i+1)
	if raw[i] == ']' {
		return out, nil
	}
	for {
		end := skipValue(raw, i)
		out = append(out, json.RawMessage(raw[i:end:end]))
		i = skipSpace(raw, end)
		if raw[i] == ']' {
			return out, nil
		}
		i = skipSpace(raw, i+1)
	}
}

// openValue checks that raw is exactly one valid JSON value opening with
// delim ('{' or '['), and returns the offset of delim.
func openValue(raw []byte, delim byte) (int, error) {
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		if err == nil {
			err = errors.New("not valid JSON")
		}
		return 0, err
	}
	i := skipSpace(raw, 0)
	if raw[i] != delim {
		want := "object"
		if delim == '[' {
			want = "array"
		}
		return 0, fmt.Errorf("want a JSON %s, got %s", want, describeByte(raw[i]))
	}
	return i, nil
}

// skipSpace returns the offset of the first byte at or after i that is not
// JSON white space.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at i in raw, which
// must be valid JSON (openValue checked it).
func skipValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				j = skipString(raw, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(raw)
	}
	j := i // a number, true, false or null
	for j < len(raw) {
		switch raw[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
		j++
	}
	return j
}

// skipString returns the end of the JSON string starting at i.
func skipString(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}

// decodeKey decodes an object key as encoding/json does: a key without
// escapes is its bytes, unless they are not UTF-8 (the decoder puts
// U+FFFD for each bad byte).
func decodeKey(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var k string
	err := json.Unmarshal(raw, &k)
	return k, err
}

// describeByte names the JSON value a byte opens, for errors.
func describeByte(c byte) string {
	switch c {
	case '{', '[':
		return fmt.Sprintf("%q", string(c))
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// get returns the value of key, or nil.
func get(ms []member, key string) json.RawMessage {
	for _, m := range ms {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// set replaces the value of key in place, or appends the key.
func set(ms []member, key string, val []byte) []member {
	out := make([]member, len(ms), len(ms)+1)
	copy(out, ms)
	for i := range out {
		if out[i].key == key {
			out[i].val = val
			return out
		}
	}
	return append(out, member{key, val})
}

// encodeObject writes members back as a compact JSON object; values are
// written as they are.
func encodeObject(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(encodeString(m.key))
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// encodeArray writes elements back as a compact JSON array.
func encodeArray(elems []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// encodeString encodes s as a JSON string without HTML escaping, so that
// text such as "<environment_context>" stays readable.
func encodeString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// str decodes a JSON string value; ok is false for anything else.
func str(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// kindOf reports the JSON type of raw by its first byte: '{', '[', '"',
// 'n' (null), 't'/'f', or '0' for numbers; 0 when empty.
func kindOf(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	switch c := raw[0]; c {
	case '{', '[', '"', 'n', 't', 'f':
		return c
	default:
		return '0'
	}
}

// compact returns raw without insignificant whitespace.
func compact(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
