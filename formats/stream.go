package formats

import (
	"errors"
	"io"
	"strings"
)

// errNotStreamable says a document needs the whole-file path: UTF-16 text,
// or a shape the streaming reader does not take apart.
var errNotStreamable = errors.New("not streamable")

// parseEachReader is parseEach over a reader, for the big files of a
// bundle: a top-level array, or a Kubernetes List's "items", is decoded one
// element at a time straight from the reader (valueReader), so neither the
// file's bytes nor a generic tree of the whole document is ever in memory.
// It returns errNotStreamable for UTF-16 text and other shapes, and any
// JSON error as it meets it; callers then read the file whole and use
// parseEach, which also gives the canonical error with line and column.
func parseEachReader[T any](r io.Reader, build func(o obj, index int) *T) ([]*T, error) {
	return parseEachReaderWith(r, build, streamOptions[T]{})
}

// streamOptions tune parseEachReaderWith for a list.
type streamOptions[T any] struct {
	// reuse says, of what build made of an element, whether the element's
	// tree can be read into again (nothing of it kept but strings and
	// numbers); nil: never.
	reuse func(*T) bool
	// size is the list's size in bytes when known: a big list has its
	// index of short strings made at its full size at once (internMaxCount)
	// instead of grown to it, which allocates about as much again.
	size int64
	// elementSize is the least size in bytes of an element, when known:
	// the list is then made for size/elementSize elements at once, not
	// grown to them (20,000 endpoints in a large cluster's node), up to
	// maxCount.
	elementSize, maxCount int64
	// raw names the members of an element (spelled exactly) whose plain
	// string values, or arrays of them, build reads as their bytes
	// (rawText): it must not keep the element's top-level object.
	raw []string
	// rawIn names a member of an element and a member of the objects of
	// its array left raw likewise: ["IpConfigurations", "IpAddress"].
	rawIn [2]string
}

// internFullFrom is the size of a list whose short strings fill their
// index: a 1,000-node cluster's endpoints, load balancers and Services do.
const internFullFrom = 1 << 20

// parseEachReaderWith is parseEachReader with the options.
func parseEachReaderWith[T any](r io.Reader, build func(o obj, index int) *T, opt streamOptions[T]) ([]*T, error) {
	vr := newValueReader(r)
	if opt.size >= internFullFrom {
		vr.seen = make(map[string]any, internMaxCount)
	}
	if opt.reuse != nil {
		vr.nodes = &nodePool{}
	}
	vr.raw, vr.rawIn = opt.raw, opt.rawIn
	if opt.elementSize > 0 && opt.size > 0 {
		vr.listCap = int(min(opt.size/opt.elementSize, opt.maxCount))
	}
	head := vr.head(4)
	switch {
	case len(head) >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF:
		vr.pos += 3
	case len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF):
		return nil, errNotStreamable
	case len(head) >= 4 && head[0] != 0 && head[1] == 0 && head[2] != 0 && head[3] == 0:
		return nil, errNotStreamable
	}
	first, ok := vr.nonSpace()
	if !ok {
		if vr.err != nil {
			return nil, vr.err
		}
		return nil, errNotStreamable // empty: the whole-file path says what that means
	}
	var out []*T
	var err error
	switch first {
	case '[':
		vr.pos++
		if out, err = streamElements(vr, build, opt.reuse, 1, 0); err != nil {
			return nil, err
		}
	case '{':
		if out, err = streamItems(vr, build, opt.reuse); err != nil {
			return nil, err
		}
	default:
		return nil, errNotStreamable
	}
	if _, more := vr.nonSpace(); more {
		return nil, errors.New("unexpected data after the top-level value")
	}
	if vr.err != nil {
		return nil, vr.err
	}
	return out, nil
}

// streamElements decodes the elements of an array whose '[' was read, and
// its closing ']'. depth is the elements' depth for expandPSStrings,
// nesting theirs for the nesting limit as the whole-file path counts it.
// With reuse, an element's tree is read into again by the next when
// nothing of it was kept (streamOptions.reuse).
func streamElements[T any](vr *valueReader, build func(o obj, index int) *T, reuse func(*T) bool, depth, nesting int) ([]*T, error) {
	var out []*T
	i := 0
	c, ok := vr.nonSpace()
	if ok && c == ']' {
		vr.pos++
		return out, nil
	}
	if vr.listCap > 0 {
		out = make([]*T, 0, vr.listCap)
	}
	if len(vr.raw) > 0 || vr.rawIn[0] != "" {
		vr.rawDepth = nesting + 1 // the elements' own members
		defer func() { vr.endRaw(); vr.rawDepth = 0 }()
	}
	for {
		if !ok {
			return nil, vr.failure()
		}
		vr.nodes.begin()
		vr.psMaybe = false
		v, err := vr.value(nesting)
		if err != nil {
			return nil, err
		}
		n := len(out)
		if vr.psMaybe {
			out, i = buildElement(v, depth, build, out, i)
		} else {
			out, i = buildExpanded(v, build, out, i)
		}
		vr.endRaw()
		if reuse != nil {
			// Not an object, or dropped: nothing of it was kept either.
			vr.nodes.end(len(out) == n || reuse(out[n]))
		}
		if c, ok = vr.nonSpace(); !ok {
			return nil, vr.failure()
		}
		vr.pos++
		switch c {
		case ']':
			return out, nil
		case ',':
			_, ok = vr.nonSpace()
		default:
			return nil, errFastSyntax
		}
	}
}

// streamItems reads a top-level object. Its "items" array (a Kubernetes
// List) is streamed; without one, the object is decoded whole and its
// objects taken as parseEach would (envelopes, a single object).
func streamItems[T any](vr *valueReader, build func(o obj, index int) *T, reuse func(*T) bool) ([]*T, error) {
	vr.pos++ // {
	rest := map[string]any{}
	var items []*T
	streamed, sawItems := false, false
	finish := func() []*T {
		if streamed {
			return items
		}
		return buildEach(objects(expandPSStrings(rest, 0)), build)
	}
	c, ok := vr.nonSpace()
	if ok && c == '}' {
		vr.pos++
		return finish(), nil
	}
	for {
		if !ok || c != '"' {
			return nil, vr.failure()
		}
		k, err := vr.value(1)
		if err != nil {
			return nil, err
		}
		key := k.(string)
		isItems := strings.EqualFold(key, "items")
		if isItems && sawItems {
			// A second "items": the whole-file path keeps the last, or
			// the one spelled exactly; it decides.
			return nil, errNotStreamable
		}
		sawItems = sawItems || isItems
		if c, ok = vr.nonSpace(); !ok || c != ':' {
			return nil, vr.failure()
		}
		vr.pos++
		if c, ok = vr.nonSpace(); !ok {
			return nil, vr.failure()
		}
		switch {
		case isItems && c == '[':
			vr.pos++
			if items, err = streamElements(vr, build, reuse, 2, 2); err != nil {
				return nil, err
			}
			streamed = true
		default:
			v, err := vr.value(1)
			if err != nil {
				return nil, err
			}
			if isItems {
				if v != nil {
					return nil, errNotStreamable
				}
				streamed = true
			} else {
				rest[key] = v
			}
		}
		if c, ok = vr.nonSpace(); !ok {
			return nil, vr.failure()
		}
		vr.pos++
		switch c {
		case '}':
			return finish(), nil
		case ',':
			c, ok = vr.nonSpace()
		default:
			return nil, errFastSyntax
		}
	}
}
