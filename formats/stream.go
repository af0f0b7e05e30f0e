package formats

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// errNotStreamable says a document needs the whole-file path: UTF-16 text,
// or a shape the streaming reader does not take apart.
var errNotStreamable = errors.New("not streamable")

// parseEachReader is parseEach over a reader, for the big files of a
// bundle: a top-level array, or a Kubernetes List's "items", is decoded one
// element at a time straight from the reader, so neither the file's bytes
// nor a generic tree of the whole document is ever in memory. It returns
// errNotStreamable for UTF-16 text and other shapes, and any JSON error as
// it meets it; callers then read the file whole and use parseEach, which
// also gives the canonical error with line and column.
func parseEachReader[T any](r io.Reader, build func(o obj, index int) *T) ([]*T, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4)
	switch {
	case len(head) >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF:
		br.Discard(3)
	case len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF):
		return nil, errNotStreamable
	case len(head) >= 4 && head[0] != 0 && head[1] == 0 && head[2] != 0 && head[3] == 0:
		return nil, errNotStreamable
	}
	first, err := firstNonSpace(br)
	if err != nil {
		return nil, errNotStreamable // empty: the whole-file path says what that means
	}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	var out []*T
	switch first {
	case '[':
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		if out, err = streamElements(dec, build, 1); err != nil {
			return nil, err
		}
	case '{':
		if out, err = streamItems(dec, build); err != nil {
			return nil, err
		}
	default:
		return nil, errNotStreamable
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level value")
	}
	return out, nil
}

func firstNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.Discard(1)
		default:
			return b[0], nil
		}
	}
}

// streamElements decodes the elements of an array whose '[' was read, and
// its closing ']'.
func streamElements[T any](dec *json.Decoder, build func(o obj, index int) *T, depth int) ([]*T, error) {
	var out []*T
	i := 0
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if m, isObj := expandPSStrings(v, depth).(map[string]any); isObj {
			if t := build(m, i); t != nil {
				out = append(out, t)
			}
			i++
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// streamItems reads a top-level object. Its "items" array (a Kubernetes
// List) is streamed; without one, the object is decoded whole and its
// objects taken as parseEach would (envelopes, a single object).
func streamItems[T any](dec *json.Decoder, build func(o obj, index int) *T) ([]*T, error) {
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	rest := map[string]any{}
	var items []*T
	streamed := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if strings.EqualFold(key, "items") && !streamed {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			switch t {
			case json.Delim('['):
				if items, err = streamElements(dec, build, 2); err != nil {
					return nil, err
				}
				streamed = true
				continue
			case nil:
				streamed = true
				continue
			}
			return nil, errNotStreamable
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		rest[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if streamed {
		return items, nil
	}
	objs := objects(expandPSStrings(rest, 0))
	out := make([]*T, 0, len(objs))
	for i, o := range objs {
		if t := build(o, i); t != nil {
			out = append(out, t)
		}
	}
	return out, nil
}
