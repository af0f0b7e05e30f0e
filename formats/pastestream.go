package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The streaming reader of Format-List pastes. A paste is console text
// read by addText as a whole: its lines split several times over (quotes,
// indentation, tables, records), each record kept as maps of lines, every
// object built before the first is classified. For one node's
// Get-HnsEndpoint output in a large cluster (tens of MB) that took many
// times the memory and time of the same endpoints as JSON. Here a paste
// made only of Format-List records is read line by line from its reader
// and each record becomes its object as soon as it ends, from one reused
// buffer, values interned.
//
// It takes only what addText would read as Format-List records and
// nothing else, and gives exactly what addText gives for it: any line that
// could make addText read the text otherwise (a Markdown quote or fence,
// indentation it would remove, a table's dashes, route print or ipconfig
// output, a fixed-width console wrap, text that is not printable ASCII, a
// JSON value) stops it, and the whole-text path reads the part instead
// (FuzzPasteStream and TestPasteStreamSame compare the two).

// errNotPlain stops the streaming reader: the whole-text path decides.
var errNotPlain = errors.New("not a plain Format-List paste")

// Bounds of the streaming reader; past them the whole-text path, with its
// own limits, reads the part.
const (
	maxStreamLine   = 1 << 20 // one physical line
	maxStreamRecord = 4 << 20 // one record's lines
)

// streamLine is one physical line of the current record: the line as
// printed (trailing white space removed) and its value part, offsets into
// the record's buffer.
type streamLine struct{ phys, physEnd, val, valEnd int }

// streamEntry is one key of the current record, in the order the keys
// first appear; its value's lines are lines[first:first+n].
type streamEntry struct {
	key      string
	first, n int
}

// wrapCount sums up the places where values continue on the next line as
// detectWrap needs them: how many, how many inside a token, and how many
// after a line of each width (the text is ASCII, so runes and cells
// count alike).
type wrapCount struct {
	total, inside int
	widths        map[int]int
}

func (c *wrapCount) add(prev, next string) {
	c.total++
	if insideToken(prev, next) {
		c.inside++
	}
	if c.widths == nil {
		c.widths = map[int]int{}
	}
	c.widths[len(prev)]++
}

// hard is detectWrap's verdict: a fixed-width wrap was detected.
func (c *wrapCount) hard() bool {
	if c.total < 2 || c.inside == 0 || len(c.widths) != 1 {
		return false
	}
	for w := range c.widths {
		return w >= 40
	}
	return false
}

// listStream reads one part.
type listStream struct {
	set  *objectSet // the objects of this part
	file string

	buf     []byte // the current record's lines
	lines   []streamLine
	entries []streamEntry
	lastKey int // the entry continuation lines go to; -1 before a key line
	value   []byte
	seen    map[string]string
	spare   obj // a record's map, emptied for the next

	command  string // after the last prompt
	selected bool   // the command chose the properties
	anySel   bool
	records  int // records seen, for notes
	kept     int // objects kept, for references
	n        int // objects recognised
	unknown  int
	wraps    wrapCount // every break, as addText's detectWrap sees them first
	cutWraps wrapCount // the breaks dropped with a cut key

	notes, markNotes []string

	// The checks that send the text to the whole-text path.
	indent0     bool // a non-blank line starts at column 0
	blockIndent int  // the least indentation of the current block; -1 when none
	sawText     bool // a non-blank line was read (JSON is told by the first)
}

// streamList reads r as a plain Format-List paste into set and returns
// how many objects it recognised, or errNotPlain (or the reader's error)
// when the whole-text path must read it; set is changed only on success.
func (set *objectSet) streamList(r io.Reader, size int64, file string) (int, error) {
	br := bufio.NewReaderSize(r, int(min(max(size+16, 4096), maxStreamLine)))
	if head, _ := br.Peek(512); len(head) > 0 {
		if kind, _ := fileKind(head); kind != "" {
			return 0, errNotPlain
		}
	}
	part := &objectSet{hint: set.hint}
	part.init()
	ls := &listStream{set: part, file: file, lastKey: -1, blockIndent: -1, seen: map[string]string{}}
	first := true
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return 0, errNotPlain
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		if first {
			first = false
			line = bytes.TrimPrefix(line, []byte{0xEF, 0xBB, 0xBF})
		}
		if len(line) > 0 || err == nil {
			if perr := ls.line(line); perr != nil {
				return 0, perr
			}
		}
		if err == io.EOF {
			break
		}
	}
	if err := ls.end(); err != nil {
		return 0, err
	}
	set.absorb(part)
	set.notes = append(set.notes, part.notes...)
	set.recognised[file] = true
	return ls.n, nil
}

// hostMarker reports whether l[i:] starts one of the strings that make
// addText read route print or ipconfig output (addHostText,
// ipconfigText): "Active Routes:", "IPv4 Route Table", "Windows IP
// Configuration", "Windows-IP-Konfiguration", ". :".
func hostMarker(l []byte, i int) bool {
	t := l[i:]
	switch t[0] {
	case '.':
		return bytes.HasPrefix(t, []byte(". :"))
	case 'A':
		return bytes.HasPrefix(t, []byte("Active Routes:"))
	case 'I':
		return bytes.HasPrefix(t, []byte("IPv4 Route Table"))
	case 'W':
		return bytes.HasPrefix(t, []byte("Windows IP Configuration")) || bytes.HasPrefix(t, []byte("Windows-IP-Konfiguration"))
	}
	return false
}

// lineByte classes the bytes of a line for line's check: printable ASCII,
// the first byte of a host marker, or anything else.
var lineByte = func() (t [256]byte) {
	for c := range t {
		if c < 0x20 || c > 0x7e {
			t[c] = byteOther
		}
	}
	for _, c := range ".AIW" {
		t[c] = byteMarker
	}
	return t
}()

const (
	bytePlain = iota
	byteOther
	byteMarker
)

// line takes one physical line (with its "\n", if any).
func (ls *listStream) line(raw []byte) error {
	l := bytes.TrimSuffix(raw, []byte{'\n'})
	l = bytes.TrimRight(l, "\r")
	// One pass for what sends the text elsewhere: tabs, control bytes and
	// non-ASCII (the whole-text path), and route print or ipconfig text.
	for i, c := range l {
		switch lineByte[c] {
		case byteOther:
			return errNotPlain
		case byteMarker:
			if hostMarker(l, i) {
				return errNotPlain
			}
		}
	}
	l = bytes.TrimRight(l, " ")
	indent := len(l) - len(bytes.TrimLeft(l, " "))
	if len(l) == 0 {
		if err := ls.endBlock(); err != nil {
			return err
		}
		return ls.flush()
	}
	t := l[indent:]
	switch {
	case t[0] == '>', bytes.HasPrefix(t, []byte("```")), bytes.HasPrefix(t, []byte("~~~")):
		return errNotPlain // a Markdown quote or fence
	case !ls.sawText && (t[0] == '[' || t[0] == '{'):
		return errNotPlain // JSON
	case len(l) >= 2 && bytes.IndexByte(l, '-') >= 0 && len(bytes.Trim(l, "- ")) == 0:
		return errNotPlain // a table's dashes
	}
	ls.sawText = true
	if indent == 0 {
		ls.indent0 = true
	}
	if ls.blockIndent < 0 || indent < ls.blockIndent {
		ls.blockIndent = indent
	}
	if end := promptEnd(l); end > 0 {
		if err := ls.flush(); err != nil {
			return err
		}
		ls.command = strings.TrimSpace(string(l[end:]))
		ls.selected = selectsProperties(ls.command)
		return nil
	}
	if keyEnd, valueAt, ok := psKeyBytes(l); ok {
		if len(ls.buf)+len(l) > maxStreamRecord {
			return errNotPlain
		}
		if ls.lastKey < 0 {
			ls.records++
			ls.anySel = ls.anySel || ls.selected
		}
		start := len(ls.buf)
		ls.buf = append(ls.buf, l...)
		v := bytes.TrimLeft(l[valueAt:], " ")
		ls.lines = append(ls.lines, streamLine{start, len(ls.buf), start + len(l) - len(v), len(ls.buf)})
		key := l[:keyEnd]
		ls.lastKey = -1
		for i := range ls.entries {
			if ls.entries[i].key == string(key) {
				ls.lastKey = i
				break
			}
		}
		if ls.lastKey < 0 {
			ls.entries = append(ls.entries, streamEntry{key: ls.intern(key)})
			ls.lastKey = len(ls.entries) - 1
		}
		ls.entries[ls.lastKey].first, ls.entries[ls.lastKey].n = len(ls.lines)-1, 1
		return nil
	}
	if ls.lastKey < 0 {
		return nil // prose, not a record
	}
	if len(ls.buf)+len(l) > maxStreamRecord {
		return errNotPlain
	}
	prev := ls.lines[len(ls.lines)-1]
	start := len(ls.buf)
	ls.buf = append(ls.buf, l...)
	ls.lines = append(ls.lines, streamLine{start, len(ls.buf), start + indent, len(ls.buf)})
	ls.entries[ls.lastKey].n++
	ls.wraps.add(string(ls.buf[prev.phys:prev.physEnd]), string(l))
	return nil
}

// endBlock checks the block of non-blank lines that ended: addText
// unindents a block indented four spaces or more as a whole.
func (ls *listStream) endBlock() error {
	if ls.blockIndent >= 4 {
		return errNotPlain
	}
	ls.blockIndent = -1
	return nil
}

// promptEnd is the end of a PowerShell prompt ("PS C:\k>") that starts l,
// or 0 (psPrompt).
func promptEnd(l []byte) int {
	if !bytes.HasPrefix(l, []byte("PS ")) {
		return 0
	}
	if i := bytes.IndexByte(l[3:], '>'); i >= 0 {
		return 3 + i + 1
	}
	return 0
}

// flush ends the current record: its object is built, marked and added.
func (ls *listStream) flush() error {
	if ls.lastKey < 0 {
		return nil
	}
	defer func() {
		ls.buf, ls.lines, ls.entries, ls.lastKey = ls.buf[:0], ls.lines[:0], ls.entries[:0], -1
	}()
	ri := ls.records - 1
	// A record cut in the middle of its last key (parseFormatListNotes).
	last := &ls.entries[len(ls.entries)-1]
	if last.n >= 2 {
		end := ls.lines[last.first+last.n-1]
		if k := string(ls.buf[end.phys:end.physEnd]); isBareWord(k) {
			prev := ls.lines[last.first+last.n-2]
			ls.notes = append(ls.notes, fmt.Sprintf("record %d%s ends in the middle of a key (%q): the paste was cut there; dropped", ri+1, ls.label(), k))
			last.n--
			ls.cutWraps.add(string(ls.buf[prev.phys:prev.physEnd]), k)
		}
	}
	o := ls.spare
	if o == nil {
		o = make(obj, len(ls.entries))
	}
	ls.spare = nil
	for _, e := range ls.entries {
		v := ls.valueOf(e)
		if fixed, cut := closeCutValue(v); cut {
			v = fixed
			ls.notes = append(ls.notes, fmt.Sprintf("record %d%s: the value of %s is cut off (no closing brace): kept what is there, the rest is unknown", ri+1, ls.label(), e.key))
		}
		o[e.key] = psValue(v, 0)
	}
	keep, unknown, k := markObject(o, ri, ls.selected, true, kindUnknown, &ls.markNotes)
	if unknown {
		ls.unknown++
	}
	if !keep {
		return nil
	}
	if ls.set.addKind(o, k, ls.kept, ls.file) {
		ls.n++
	}
	ls.kept++
	if k == kindEndpoint {
		// endpointOf keeps nothing of the record's own map (its values
		// are copied or are values of their own): the next record reuses it.
		clear(o)
		ls.spare = o
	}
	return nil
}

// valueOf joins an entry's lines as parseFormatListNotes does when the
// console wrapped at spaces (the only wrap the streaming reader takes).
func (ls *listStream) valueOf(e streamEntry) string {
	l := ls.lines[e.first]
	if e.n == 1 {
		return ls.intern(ls.buf[l.val:l.valEnd])
	}
	v := append(ls.value[:0], ls.buf[l.val:l.valEnd]...)
	for i := 1; i < e.n; i++ {
		prev, cur := ls.lines[e.first+i-1], ls.lines[e.first+i]
		cont := ls.buf[cur.val:cur.valEnd]
		if len(v) > 0 && !guidSpans(string(ls.buf[prev.phys:prev.physEnd]), string(cont)) {
			v = append(v, ' ')
		}
		v = append(v, cont...)
	}
	ls.value = v
	return ls.intern(v)
}

// label names the current record by its Name or ID line (recordLabel).
func (ls *listStream) label() string {
	for _, k := range []string{"Name", "ID", "Id"} {
		for _, e := range ls.entries {
			if e.key != k {
				continue
			}
			if l := ls.lines[e.first]; l.valEnd > l.val {
				return " (" + k + " " + string(ls.buf[l.val:l.valEnd]) + ")"
			}
		}
	}
	return ""
}

// intern returns b as a string, one copy per short value (internMaxLen,
// internMaxCount, as the JSON reader keeps them).
func (ls *listStream) intern(b []byte) string {
	if len(b) > internMaxLen {
		return string(b)
	}
	if s, ok := ls.seen[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(ls.seen) < internMaxCount {
		ls.seen[s] = s
	}
	return s
}

// end finishes the part: the last record, and what addText would have
// decided from the whole text.
func (ls *listStream) end() error {
	if err := ls.endBlock(); err != nil {
		return err
	}
	if err := ls.flush(); err != nil {
		return err
	}
	if !ls.indent0 || ls.n == 0 {
		return errNotPlain // addText unindents the whole text, or reads it as something else
	}
	after := ls.wraps
	after.total -= ls.cutWraps.total
	after.inside -= ls.cutWraps.inside
	after.widths = map[int]int{}
	for w, c := range ls.wraps.widths {
		if c -= ls.cutWraps.widths[w]; c > 0 {
			after.widths[w] = c
		}
	}
	if ls.wraps.hard() || after.hard() {
		return errNotPlain // a fixed-width wrap: values are joined otherwise
	}
	notes := append(ls.notes, ls.markNotes...)
	if ls.anySel {
		notes = append(notes, "the command chose which properties to print (Select / Format-List with names): the other fields are unknown, and the rules that need them cannot judge")
	}
	if ls.unknown > 0 {
		notes = append(notes, fmt.Sprintf("%d record(s) cut before they show what they are: ignored", ls.unknown))
	}
	for _, note := range notes {
		ls.set.notes = append(ls.set.notes, ls.file+": "+note)
	}
	return nil
}

// isBareWord: a property name alone on a line (bareWord).
func isBareWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// psKeyBytes is psKeyValue over bytes: the key is line[:keyEnd], the value
// line[valueAt:].
func psKeyBytes(line []byte) (keyEnd, valueAt int, ok bool) {
	i := 0
	for i < len(line) && (line[i] == '_' || line[i] >= 'A' && line[i] <= 'Z' || line[i] >= 'a' && line[i] <= 'z' || i > 0 && line[i] >= '0' && line[i] <= '9') {
		i++
	}
	if i == 0 {
		return 0, 0, false
	}
	keyEnd = i
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return 0, 0, false
	}
	if i+1 < len(line) && line[i+1] != ' ' {
		return 0, 0, false
	}
	return keyEnd, i + 1, true
}
