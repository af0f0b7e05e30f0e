package snapshot

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Setting is the value of a decoded JSON object under the first of keys
// present: spelled exactly, else in any case (HNS, PowerShell and kubectl
// spell keys differently), the earliest key winning. The parsers' getter
// reads every field through it.
func Setting(m map[string]any, keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v, true
		}
	}
	// Spelled otherwise (a paste, another producer): one walk of the
	// object for all the keys, instead of a walk per key.
	best, bv := len(keys), any(nil)
	for k, v := range m {
		if v == nil {
			continue
		}
		for i := 0; i < best; i++ {
			if strings.EqualFold(k, keys[i]) {
				best, bv = i, v
				break
			}
		}
	}
	return bv, best < len(keys)
}

// settingInt reads an integer: a JSON number, or a number as text.
func settingInt(m map[string]any, names ...string) (int64, bool) {
	v, _ := Setting(m, names...)
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
	v, _ := Setting(m, names...)
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
