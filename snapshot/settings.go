package snapshot

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// setting is a value of a decoded JSON object by the first of names
// present, matched exactly, else case-insensitively (HNS, PowerShell and
// kubectl spell keys differently), as the parsers' getter does.
func setting(m map[string]any, names ...string) (any, bool) {
	for _, n := range names {
		if v, ok := m[n]; ok && v != nil {
			return v, true
		}
	}
	for _, n := range names {
		for k, v := range m {
			if v != nil && strings.EqualFold(k, n) {
				return v, true
			}
		}
	}
	return nil, false
}

// settingInt reads an integer: a JSON number, or a number as text.
func settingInt(m map[string]any, names ...string) (int64, bool) {
	v, _ := setting(m, names...)
	return IntValue(v)
}

// IntValue reads a decoded JSON value as an integer: a number (json.Number
// or float64), a number written as text (decimal, hex, or a whole float),
// a boolean as 0 or 1. The parsers read every field this way.
func IntValue(v any) (int64, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = t.String()
	case float64:
		s = strconv.FormatFloat(t, 'f', -1, 64)
	case string:
		s = strings.TrimSpace(t)
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	default:
		return 0, false
	}
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return i, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		return int64(f), true
	}
	return 0, false
}

// settingString reads a value as text (a number or a boolean too).
func settingString(m map[string]any, names ...string) string {
	v, _ := setting(m, names...)
	return TextValue(v)
}

// TextValue reads a decoded JSON value as text: a string trimmed, a number
// or a boolean formatted; "" for anything else.
func TextValue(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case json.Number:
		return t.String()
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	}
	return ""
}

// decodeObject decodes one JSON object, numbers kept as json.Number.
func decodeObject(raw string) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}
