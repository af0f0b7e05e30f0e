package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// obj is one decoded JSON object.
type obj map[string]any

// parseJSON decodes a whole document (after UTF-16/BOM handling). Syntax
// errors are reported with line and column.
func parseJSON(data []byte) (any, error) {
	text, err := jsonText(data)
	if err != nil {
		return nil, err
	}
	return parseJSONText(text)
}

// jsonText is a document's text as JSON: UTF-16 and BOMs decoded, space
// trimmed.
func jsonText(data []byte) ([]byte, error) {
	text, err := DecodeText(data)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSpace(text), nil
}

func parseJSONText(text []byte) (any, error) {
	if len(text) == 0 {
		return nil, nil // an empty file: a collector that found nothing
	}
	dec := jsonDecoder(text)
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonSyntaxError(text, err)
	}
	if err := jsonEnd(dec, text); err != nil {
		return nil, err
	}
	return expandPSStrings(v, 0), nil
}

func jsonDecoder(text []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	return dec
}

// firstJSON decodes the JSON value text starts with and returns what
// follows it.
func firstJSON(text []byte) (any, []byte, error) {
	dec := jsonDecoder(text)
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, jsonSyntaxError(text, err)
	}
	return expandPSStrings(v, 0), text[dec.InputOffset():], nil
}

// jsonEnd checks that nothing follows the top-level value.
func jsonEnd(dec *json.Decoder, text []byte) error {
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("invalid JSON at %s: unexpected data after the top-level value", position(text, dec.InputOffset()))
	}
	return nil
}

// expandPSStrings undoes what ConvertTo-Json does past its -Depth (default
// 2): nested objects become "@{k=v; ...}" strings and arrays
// "System.Object[]". The first are parsed as PowerShell prints them, the
// second become hidden markers.
func expandPSStrings(v any, depth int) any {
	if depth > maxPSDepth {
		return v
	}
	switch t := v.(type) {
	case string:
		if psExpandable(t) {
			if h, ok := psValue(t, 0).(hidden); ok {
				h.why = "ConvertTo-Json stopped at its -Depth and printed System.Object[]"
				return h
			} else if m, ok := psValue(t, 0).(map[string]any); ok {
				return m
			}
		}
	case []any:
		for i := range t {
			t[i] = expandPSStrings(t[i], depth+1)
		}
	case map[string]any:
		// Containers are expanded in place; a map entry is written back
		// only when a string became something else (a write per key cost
		// a twentieth of analyze time).
		for k, e := range t {
			switch e := e.(type) {
			case string:
				if psExpandable(e) {
					if nv := expandPSStrings(e, depth+1); nv != any(e) {
						t[k] = nv
					}
				}
			case []any, map[string]any:
				expandPSStrings(e, depth+1)
			}
		}
	}
	return v
}

// psExpandable says whether a string may be PowerShell's rendering of an
// object (@{…}) or of an array cut by ConvertTo-Json's depth
// (System.Object[]): a prefix test before the regular expression.
func psExpandable(s string) bool {
	return strings.HasPrefix(s, "@{") || strings.HasPrefix(s, "System.") && psHidden().MatchString(s)
}

func jsonSyntaxError(text []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at %s: %s", position(text, se.Offset), se.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("invalid JSON: unexpected end of input (truncated file?)")
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

func position(text []byte, offset int64) string {
	if offset > int64(len(text)) {
		offset = int64(len(text))
	}
	before := text[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := offset - int64(bytes.LastIndexByte(before, '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

// objects returns the objects of v: an array's object elements, or v itself
// when it is a single object (ConvertTo-Json's unwrapped one-element array).
// Kubernetes lists ({"kind":"...List","items":[...]}) are unwrapped too.
func objects(v any) []obj {
	switch t := v.(type) {
	case []any:
		out := make([]obj, 0, len(t))
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	case map[string]any:
		o := obj(t)
		if items, ok := o.get("items"); ok {
			if _, isList := items.([]any); isList || items == nil {
				return objects(items)
			}
		}
		// HNS v1 envelope: {"Success":true,"Output":[...]}
		if out, ok := o.get("Output"); ok {
			if _, hasSuccess := o.get("Success"); hasSuccess {
				return objects(out)
			}
		}
		return []obj{o}
	}
	return nil
}

// appendObjects appends the objects of v as objects gives them, to a
// caller's buffer instead of a new slice.
func appendObjects(buf []obj, v any) []obj {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				buf = append(buf, m)
			}
		}
		return buf
	case map[string]any:
		return append(buf, objects(t)...)
	}
	return buf
}

// get looks a key up, exactly first and then case-insensitively.
func (o obj) get(key string) (any, bool) {
	if v, ok := o[key]; ok {
		return v, true
	}
	for k, v := range o {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// hasAny reports whether any of keys is present (get of each, with one
// case-insensitive walk of the object for all of them instead of one per
// key: classify asks for groups of keys most objects lack).
func (o obj) hasAny(keys ...string) bool {
	for _, k := range keys {
		if _, ok := o[k]; ok {
			return true
		}
	}
	for k := range o {
		for _, key := range keys {
			if strings.EqualFold(k, key) {
				return true
			}
		}
	}
	return false
}

// first returns the value of the first key present (snapshot.Setting).
func (o obj) first(keys ...string) (any, bool) { return snapshot.Setting(o, keys...) }

// str returns a string field; numbers and booleans are formatted.
func (o obj) str(keys ...string) string {
	v, _ := o.first(keys...)
	return asString(v)
}

func asString(v any) string {
	if r, ok := v.(*rawText); ok {
		return snapshot.TextValue(string(r.b))
	}
	return snapshot.TextValue(v)
}

// cooked is v as the tree would hold it had the reader not left it raw
// (rawText, rawTexts): the readers of a value that do not take bytes.
func cooked(v any) any {
	switch t := v.(type) {
	case *rawText:
		return string(t.b)
	case *rawTexts:
		a := make([]any, len(t.items))
		for i, b := range t.items {
			a[i] = string(b)
		}
		return a
	}
	return v
}

// num returns an integer field; numeric strings count. ok is false when the
// field is absent or not a number.
func (o obj) num(keys ...string) (int64, bool) {
	v, _ := o.first(keys...)
	return asInt(v)
}

func asInt(v any) (int64, bool) { return snapshot.IntValue(cooked(v)) }

// boolean returns a boolean field: JSON booleans, "True"/"False" strings
// (PowerShell) and 0/1 all count.
func (o obj) boolean(keys ...string) (value, ok bool) {
	v, _ := o.first(keys...)
	return boolOf(v)
}

// boolOf reads a value as obj.boolean does.
func boolOf(v any) (value, ok bool) {
	switch t := cooked(v).(type) {
	case bool:
		return t, true
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(t)); err == nil {
			return b, true
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i != 0, true
		}
	}
	return false, false
}

// child returns a nested object field.
func (o obj) child(keys ...string) obj {
	v, _ := o.first(keys...)
	return childOf(v)
}

// childOf reads a value as obj.child does.
func childOf(v any) obj {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return nil
}

// list returns an array field as objects (a bare object counts as one).
func (o obj) list(keys ...string) []obj {
	v, _ := o.first(keys...)
	return objects(v)
}

// strs returns a field holding strings: an array of strings, one string, or a
// comma-separated string (HNS v1 DNSServerList, DNSSuffix).
func (o obj) strs(keys ...string) []string {
	v, _ := o.first(keys...)
	return stringsOf(v)
}

// stringsOf reads a value as strings the way obj.strs does.
func stringsOf(v any) []string {
	switch t := v.(type) {
	case []any:
		return appendStringsOf(make([]string, 0, len(t)), v)
	case *rawTexts:
		return appendStringsOf(make([]string, 0, len(t.items)), v)
	}
	return appendStringsOf(nil, v)
}

// appendStringsOf appends the strings of v (stringsOf) to out.
func appendStringsOf(out []string, v any) []string {
	eachStringOf(v, func(s string) { out = append(out, s) })
	return out
}

// eachStringOf calls f with each string of v, read as stringsOf reads it.
func eachStringOf(v any, f func(string)) {
	add := func(s string) {
		if !strings.Contains(s, ",") {
			// One value, the usual case (a load balancer's backend IDs,
			// 127,000 in a large cluster): no slice from Split.
			if p := strings.TrimSpace(s); p != "" {
				f(p)
			}
			return
		}
		for _, part := range strings.Split(s, ",") {
			if p := strings.TrimSpace(part); p != "" {
				f(p)
			}
		}
	}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			add(asString(e))
		}
	case *rawTexts:
		for _, b := range t.items {
			add(snapshot.TextValue(string(b)))
		}
	default:
		add(asString(v))
	}
}

// parseEach decodes a document and builds one model object per JSON object
// in it (see objects); build may return nil to drop an object.
func parseEach[T any](data []byte, build func(o obj, index int) *T) ([]*T, error) {
	text, err := jsonText(data)
	if err != nil {
		return nil, err
	}
	if len(text) > 0 && text[0] == '[' {
		return parseArrayStream(text, build)
	}
	v, err := parseJSONText(text)
	if err != nil {
		return nil, err
	}
	return buildEach(objects(v), build), nil
}

// buildEach builds one model object per JSON object; build may return nil
// to drop one.
func buildEach[T any](objs []obj, build func(o obj, index int) *T) []*T {
	out := make([]*T, 0, len(objs))
	for i, o := range objs {
		if t := build(o, i); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// buildElement builds an array element of a list file, expanded as the
// elements at depth are: an object is the next, i-th, one (out and i
// grow), anything else is passed over.
func buildElement[T any](v any, depth int, build func(o obj, index int) *T, out []*T, i int) ([]*T, int) {
	return buildExpanded(expandPSStrings(v, depth), build, out, i)
}

// buildExpanded is buildElement of an element expandPSStrings would leave
// as it is (the streaming reader saw no string it would change).
func buildExpanded[T any](v any, build func(o obj, index int) *T, out []*T, i int) ([]*T, int) {
	m, isObj := v.(map[string]any)
	if !isObj {
		return out, i
	}
	if t := build(m, i); t != nil {
		out = append(out, t)
	}
	return out, i + 1
}

// parseArrayStream decodes a top-level JSON array one element at a time, so
// that only one element's generic tree is alive at once: the bundle of a
// node in a large cluster holds tens of megabytes of endpoints and load
// balancers. Other documents (envelopes, single objects, Kubernetes lists)
// go through parseJSONText.
func parseArrayStream[T any](text []byte, build func(o obj, index int) *T) ([]*T, error) {
	dec := jsonDecoder(text)
	if _, err := dec.Token(); err != nil {
		return nil, jsonSyntaxError(text, err)
	}
	out, err := decodeElements(dec, build, 1)
	if err != nil {
		return nil, jsonSyntaxError(text, err)
	}
	if err := jsonEnd(dec, text); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeElements decodes the elements of an array whose '[' was read, and
// its closing ']', with encoding/json (the whole-file path).
func decodeElements[T any](dec *json.Decoder, build func(o obj, index int) *T, depth int) ([]*T, error) {
	var out []*T
	i := 0
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out, i = buildElement(v, depth, build, out, i)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}
