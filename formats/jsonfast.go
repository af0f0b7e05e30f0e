package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// valueReader reads a JSON document from a reader one value at a time into
// the tree encoding/json builds for an `any` with UseNumber: maps, slices,
// strings, json.Number, bools and nil, byte for byte the same
// (FuzzFastValue). It is the streaming path's decoder only. Any error is
// errFastSyntax or the reader's, and sends the loader to encoding/json on
// the whole file, which words the error; so it needs to agree with
// encoding/json only on what that accepts, and to refuse all it refuses.
//
// It exists for speed and memory: a node's bundle in a 1,000-node cluster
// holds 13 MB of endpoints and load balancers, which encoding/json decoded
// in most of analyze's time, scanning every byte twice and allocating every
// object key anew. Here a value's extent is found by a quick scan, the
// value is then built from the buffer in one pass, and keys and short
// repeated values (type names, a network's ID) are kept once.
type valueReader struct {
	r   io.Reader
	buf []byte
	pos int // the next byte to read
	end int // the end of the bytes read
	eof bool
	err error // the reader's error, once its bytes are used up
	// seen holds the short strings kept once, boxed as the tree holds
	// them (a value costs no allocation when seen), and nums the number
	// literals likewise.
	seen map[string]any
	nums map[string]any
	// nodes lends the maps and arrays of one element's tree, when the
	// caller gives them back after building (streamElements).
	nodes *nodePool
	// stack holds the elements of the arrays being read, so that each
	// array is made once at its final length.
	stack []any
	// psMaybe is set by a string value that may be PowerShell's
	// rendering of an object or array (psExpandable): a value without any
	// needs no walk by expandPSStrings.
	psMaybe bool
	// listCap is the capacity a list's slice is made with (streamOptions.elementSize).
	listCap int
	// raw lists the members of a list's elements whose values are left
	// as their bytes (rawText, rawTexts) at rawDepth, the elements'
	// depth; 0 while no element is being read.
	raw      []string
	rawDepth int
	// rawIn: the member of an element (rawIn[0]) whose array's objects
	// have their member rawIn[1] left raw (an endpoint's IP
	// configurations' addresses); inRaw while it is read.
	rawIn    [2]string
	inRaw    bool
	rawUsed  int
	rawSlots [rawMax]rawText
	rawLists [rawMax]rawTexts
}

// rawText is a string value without escapes, left as its bytes in the
// reader's buffer for a builder that only copies or looks up what it
// keeps (streamOptions.raw): an endpoint's ID, which the builder copies
// into its arena, would otherwise be made twice. The bytes are the
// buffer's, valid while the element is built; asString reads it as the
// string it stands for.
type rawText struct{ b []byte }

// rawTexts is an array of such strings: a load balancer's backend IDs,
// looked up in the backends' table by their bytes (127,000 in a large
// cluster's node, each a string made and dropped otherwise).
type rawTexts struct{ items [][]byte }

// rawMax is how many raw values one element may hold: more (the same key
// again) are read as usual.
const rawMax = 4

// errFastSyntax: the document is not JSON as encoding/json takes it.
var errFastSyntax = errors.New("invalid JSON")

// maxFastDepth is encoding/json's nesting limit.
const maxFastDepth = 10000

// Interning: strings up to internMaxLen bytes, up to internMaxCount of
// them. A map made for 6,144 entries holds them in 8,192 slots without
// growing (Go's maps fill each table to 7/8); made for 8,192 it takes
// 16,384, twice the memory while a big list is read.
const (
	internMaxLen   = 64
	internMaxCount = 6144
)

func newValueReader(r io.Reader) *valueReader { return newValueReaderSize(r, 64<<10) }

// newValueReaderSize starts with a buffer of size bytes (tests use tiny
// ones to cross every refill).
func newValueReaderSize(r io.Reader, size int) *valueReader {
	return &valueReader{r: r, buf: make([]byte, max(size, 1)), seen: map[string]any{}, nums: map[string]any{}}
}

// fill reads until the buffer is full, keeping the unread bytes; the
// buffer doubles when they fill it (a value larger than the buffer). A
// value's extent is scanned again after each fill, so filling it whole
// keeps that to twice its size, however little each Read returns.
func (vr *valueReader) fill() {
	if vr.eof {
		return
	}
	if vr.pos > 0 {
		vr.end = copy(vr.buf, vr.buf[vr.pos:vr.end])
		vr.pos = 0
	}
	if vr.end == len(vr.buf) {
		bigger := make([]byte, 2*len(vr.buf))
		copy(bigger, vr.buf[:vr.end])
		vr.buf = bigger
	}
	for empty := 0; vr.end < len(vr.buf); {
		n, err := vr.r.Read(vr.buf[vr.end:])
		vr.end += n
		switch {
		case n > 0:
			empty = 0
		case err == nil:
			if empty++; empty == maxEmptyReads {
				err = io.ErrNoProgress
			}
		}
		if err != nil {
			vr.eof = true
			if err != io.EOF {
				vr.err = err
			}
			return
		}
	}
}

// maxEmptyReads is how many reads in a row may return nothing before the
// reader is taken as stuck (bufio's rule).
const maxEmptyReads = 100

// failure is the error to return when the input ran out: the reader's
// own (a limit), or a syntax error.
func (vr *valueReader) failure() error {
	if vr.err != nil {
		return vr.err
	}
	return errFastSyntax
}

// head returns the first bytes of the input without consuming them (at
// most n, fewer when the input is shorter).
func (vr *valueReader) head(n int) []byte {
	for vr.end-vr.pos < n && !vr.eof {
		vr.fill()
	}
	return vr.buf[vr.pos:min(vr.end, vr.pos+n)]
}

// nonSpace skips white space and returns the next byte, unread; false at
// the end of the input.
func (vr *valueReader) nonSpace() (byte, bool) {
	for {
		for vr.pos < vr.end {
			switch c := vr.buf[vr.pos]; c {
			case ' ', '\t', '\r', '\n':
				vr.pos++
			default:
				return c, true
			}
		}
		if vr.eof {
			return 0, false
		}
		vr.fill()
	}
}

// value reads the value that starts at the next byte (white space skipped
// by the caller). nesting is how deep in the document it is, for the
// nesting limit: 0 for a value encoding/json would decode on its own.
func (vr *valueReader) value(nesting int) (any, error) {
	for {
		n, whole := valueExtent(vr.buf[vr.pos:vr.end], vr.eof)
		if whole {
			p := fastParser{b: vr.buf[vr.pos : vr.pos+n], vr: vr}
			v, err := p.value(nesting)
			if err == nil && p.i != n {
				err = errFastSyntax
			}
			if err != nil && vr.pos+n == vr.end {
				err = vr.failure() // cut by the reader's error, if any
			}
			vr.pos += n
			return v, err
		}
		if vr.eof {
			return nil, vr.failure()
		}
		vr.fill()
	}
}

// valueExtent finds where the value at the start of b ends, by its
// brackets and strings alone (the parser checks the rest); whole is false
// when b ends first and more may come.
func valueExtent(b []byte, eof bool) (n int, whole bool) {
	if len(b) == 0 {
		return 0, eof
	}
	switch b[0] {
	case '{', '[':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				end := stringEnd(b, i)
				if end < 0 {
					return len(b), eof
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
		}
		return len(b), eof
	case '"':
		if end := stringEnd(b, 0); end >= 0 {
			return end, true
		}
		return len(b), eof
	default:
		// A number or literal ends at the next delimiter.
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case ' ', '\t', '\r', '\n', ',', ']', '}', ':', '"', '{', '[':
				return max(i, 1), true
			}
		}
		return len(b), eof
	}
}

// stringEnd is the index after the closing quote of the string opening at
// b[at], or -1 when b ends first.
func stringEnd(b []byte, at int) int {
	for i := at + 1; ; {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		k := q
		for k > at+1 && b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// fastParser builds a value from bytes that hold all of it.
type fastParser struct {
	b  []byte
	i  int
	vr *valueReader // the interning, the lent nodes and the array stack
}

func (p *fastParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) value(depth int) (any, error) {
	if p.i >= len(p.b) {
		return nil, errFastSyntax
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.strValue()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, errFastSyntax
}

func (p *fastParser) literal(word string) error {
	if !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return errFastSyntax
	}
	p.i += len(word)
	return nil
}

func (p *fastParser) object(depth int) (any, error) {
	if depth > maxFastDepth {
		return nil, errFastSyntax
	}
	p.i++ // {
	m := p.vr.nodes.newMap()
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, errFastSyntax
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, errFastSyntax
		}
		p.i++
		p.space()
		var v any
		read := false
		vr := p.vr
		switch {
		case depth == vr.rawDepth && slices.Contains(vr.raw, k),
			vr.inRaw && depth == vr.rawDepth+2 && k == vr.rawIn[1]:
			v = p.rawValue()
			read = v != nil
		case depth == vr.rawDepth && k == vr.rawIn[0] && k != "":
			vr.inRaw = true
			v, err = p.value(depth)
			vr.inRaw, read = false, true
		}
		if !read {
			v, err = p.value(depth)
		}
		if err != nil {
			return nil, err
		}
		m[k] = v
		more, err := p.more('}')
		if err != nil {
			return nil, err
		}
		if !more {
			return m, nil
		}
	}
}

// more reads what follows an object's member or an array's element: a
// comma and the space after it (more to come), or closing (the end).
func (p *fastParser) more(closing byte) (bool, error) {
	p.space()
	if p.i >= len(p.b) {
		return false, errFastSyntax
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		p.space()
		return true, nil
	case closing:
		p.i++
		return false, nil
	}
	return false, errFastSyntax
}

func (p *fastParser) array(depth int) (any, error) {
	if depth > maxFastDepth {
		return nil, errFastSyntax
	}
	p.i++ // [
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return p.vr.nodes.arrayOf(nil), nil
	}
	vr := p.vr
	start := len(vr.stack)
	defer func() {
		clear(vr.stack[start:])
		vr.stack = vr.stack[:start]
	}()
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		vr.stack = append(vr.stack, v)
		more, err := p.more(']')
		if err != nil {
			return nil, err
		}
		if !more {
			return vr.nodes.arrayOf(vr.stack[start:]), nil
		}
	}
}

// number checks the JSON number grammar and keeps the literal.
func (p *fastParser) number() (any, error) {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return nil, errFastSyntax
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, errFastSyntax
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, errFastSyntax
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	lit := p.b[p.i:i]
	p.i = i
	nums := p.vr.nums
	if v, ok := nums[string(lit)]; ok {
		return v, nil
	}
	v := any(json.Number(lit))
	if len(lit) <= internMaxLen && len(nums) < internMaxCount {
		nums[string(v.(json.Number))] = v
	}
	return v, nil
}

// str reads a string at p.i (its opening quote), unescaped as
// encoding/json does: bad UTF-8 and lone surrogates become U+FFFD.
func (p *fastParser) str() (string, error) {
	raw, plain := p.plain()
	if !plain {
		return p.strSlow(p.i + 1)
	}
	return p.keep(raw).(string), nil
}

// strValue is str as a tree's value: a string seen before is the box kept
// with it.
func (p *fastParser) strValue() (any, error) {
	raw, plain := p.plain()
	if !plain {
		s, err := p.strSlow(p.i + 1)
		if err != nil {
			return nil, err
		}
		p.notePS(s)
		return s, nil
	}
	if len(raw) > 0 && (raw[0] == '@' || raw[0] == 'S') {
		p.vr.psMaybe = true
	}
	return p.keep(raw), nil
}

// notePS sets psMaybe for a string value that starts as psExpandable's do.
func (p *fastParser) notePS(s string) {
	if len(s) > 0 && (s[0] == '@' || s[0] == 'S') {
		p.vr.psMaybe = true
	}
}

// plain finds the string at p.i: its bytes when they need no unescaping
// (and moves past it); false when they do, or it is not closed (strSlow
// then reads it, or fails).
func (p *fastParser) plain() ([]byte, bool) {
	start := p.i + 1
	for i := start; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			return p.b[start:i], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

func (p *fastParser) strSlow(start int) (string, error) {
	b := p.b
	out := make([]byte, 0, 64)
	for i := start; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			p.i = i + 1
			return string(out), nil
		case c < 0x20:
			return "", errFastSyntax
		case c == '\\':
			if i+1 >= len(b) {
				return "", errFastSyntax
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
				i += 2
			case 'b':
				out, i = append(out, '\b'), i+2
			case 'f':
				out, i = append(out, '\f'), i+2
			case 'n':
				out, i = append(out, '\n'), i+2
			case 'r':
				out, i = append(out, '\r'), i+2
			case 't':
				out, i = append(out, '\t'), i+2
			case 'u':
				r := hex4(b[i+2:])
				if r < 0 {
					return "", errFastSyntax
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
						r2 = hex4(b[i+2:])
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						i += 6
						break
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", errFastSyntax
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			out = utf8.AppendRune(out, r)
			i += size
		}
	}
	return "", errFastSyntax
}

// hex4 reads four hex digits; -1 when they are not.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// rawValue reads the value at p.i as a rawText (a string) or rawTexts (a
// non-empty array of strings) when it is one whose bytes are the string
// (no escapes, not PowerShell's rendering of an object: psExpandable
// strings start with '@' or 'S'), and there is a slot left; else nil,
// having read nothing.
func (p *fastParser) rawValue() any {
	vr := p.vr
	if vr.rawUsed == rawMax || p.i >= len(p.b) {
		return nil
	}
	start := p.i
	switch p.b[p.i] {
	case '"':
		b, ok := p.rawString()
		if !ok {
			return nil
		}
		t := &vr.rawSlots[vr.rawUsed]
		vr.rawUsed++
		t.b = b
		return t
	case '[':
		t := &vr.rawLists[vr.rawUsed]
		items := t.items[:0]
		p.i++
		p.space()
		for p.i < len(p.b) && p.b[p.i] == '"' {
			b, ok := p.rawString()
			if !ok {
				break
			}
			items = append(items, b)
			if more, err := p.more(']'); err != nil {
				break
			} else if !more {
				vr.rawUsed++
				t.items = items
				return t
			}
		}
		clear(items)
		t.items = items[:0]
		p.i = start
	}
	return nil
}

// rawString reads a string at p.i as its bytes when they are the string
// and it cannot be PowerShell's rendering of an object; false, having
// read nothing, when not.
func (p *fastParser) rawString() ([]byte, bool) {
	start := p.i
	b, plain := p.plain()
	if !plain {
		return nil, false
	}
	if len(b) > 0 && (b[0] == '@' || b[0] == 'S') {
		p.i = start
		return nil, false
	}
	return b, true
}

// endRaw lets go of the raw values of the element just built: their bytes
// are the buffer's, which the next read overwrites.
func (vr *valueReader) endRaw() {
	for i := range vr.rawUsed {
		vr.rawSlots[i].b = nil
		clear(vr.rawLists[i].items)
		vr.rawLists[i].items = vr.rawLists[i].items[:0]
	}
	vr.rawUsed = 0
}

// keep returns b as a boxed string, the same one each time for short ones
// while there is room (keys, type names and IDs repeated in every object).
// The backends of a large node's load balancers are not kept here beyond
// that room: their builder keeps each ID once (snapshot.EndpointIDTable),
// and a second table of 100,000 IDs in a 5,000-node cluster's node would
// cost a lookup that misses the cache for each of 640,000 references.
func (p *fastParser) keep(b []byte) any {
	vr := p.vr
	if len(b) > internMaxLen {
		return string(b)
	}
	if v, ok := vr.seen[string(b)]; ok {
		return v
	}
	v := any(string(b))
	if len(vr.seen) < internMaxCount {
		vr.seen[v.(string)] = v
	}
	return v
}
