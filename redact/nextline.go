package redact

import (
	"bytes"
	"regexp"
)

// Values that go on over the next lines: a YAML key whose value starts on
// the next line (clientSecret: then an indented scalar, apiKeys: then a
// list), and a value PowerShell wraps at the console's width (Format-Table
// -Wrap, Format-List), its end on the next lines indented to its column.

var yamlKeyOnly, yamlMapping *regexp.Regexp

func compileNextLine() {
	// clientSecret:   (nothing after the colon)
	yamlKeyOnly = regexp.MustCompile(`^([ \t]*)(?:-[ \t]+)?["']?(` + keyName + `)["']?[ \t]*:[ \t]*$`)
	// a mapping's entry (name: x, "name": x): a nested object, no scalar
	yamlMapping = regexp.MustCompile(`^(?:-[ \t]+)?(?:"[^"]*"|'[^']*'|[^\s"'#:][^:#]*?)[ \t]*:(?:[ \t]|$)`)
}

// nextValue is a secret key's value still to come on the next lines.
type nextValue struct {
	kind   string
	indent int  // the key's column
	list   bool // items of a list have been seen
	scalar bool // a plain scalar has begun: its lines go on while indented
}

// yamlNext handles a line after a secret key whose value starts on the
// next line; it says whether it emitted the line.
func (w *Writer) yamlNext(c, term []byte) bool {
	n := w.next
	in := indentOf(c)
	t := c[in:]
	switch {
	case n.scalar:
		if in > n.indent {
			return true // a plain scalar's later lines: the placeholder stands for them
		}
	case len(t) >= 2 && t[0] == '-' && (t[1] == ' ' || t[1] == '\t') && in >= n.indent && !n.scalar:
		item := bytes.TrimLeft(t[1:], " \t")
		if len(item) > 0 && !yamlMapping.Match(item) && item[0] != '#' && item[0] != '[' && item[0] != '{' {
			if e := scanValue(item, 0); e > 0 && secretValue("", n.kind, item) {
				v := item
				if v[0] == '"' || v[0] == '\'' {
					v = v[:e]
				}
				w.count(n.kind)
				w.next.list = true
				w.emit(c[:len(c)-len(item)], quoted(v), item[len(v):], term)
				return true
			}
		}
	case in > n.indent && !n.list && !yamlMapping.Match(t) && t[0] != '#' && t[0] != '[' && t[0] != '{':
		if e := scanValue(t, 0); e > 0 && secretValue("", n.kind, t) {
			v := t
			if v[0] == '"' || v[0] == '\'' {
				v = v[:e]
			} else {
				w.next.scalar = true
			}
			w.count(n.kind)
			w.emit(c[:in], quoted(v), t[len(v):], term)
			if !w.next.scalar {
				w.next = nextValue{}
			}
			return true
		}
	}
	w.next = nextValue{}
	return false
}

// startNext notes a line that is a secret key alone: its value follows.
func (w *Writer) startNext(c []byte) {
	if m := yamlKeyOnly.FindSubmatchIndex(c); m != nil {
		if kind := kindOf(string(c[m[4]:m[5]])); kind != "" {
			w.next = nextValue{kind: kind, indent: m[3] - m[2]}
		}
	}
}

// noteWrap remembers the column of a secret value the line r ends with,
// bare, after some text: a wrapped value's next lines are indented to it.
func (w *Writer) noteWrap(c, r []byte) {
	w.wrapCol = 0
	if len(r) == len(c) && (len(r) == 0 || &r[0] == &c[0]) { // unchanged
		return
	}
	t := bytes.TrimRight(r, " \t")
	if !bytes.HasSuffix(t, []byte(Placeholder)) {
		return
	}
	col := len(t) - len(Placeholder)
	if col >= 4 && (t[col-1] == ' ' || t[col-1] == '\t') && len(bytes.TrimSpace(t[:col])) > 0 {
		w.wrapCol = col
	}
}

// wrapped handles a line that may carry on a wrapped secret value: only
// white space up to the value's column, then text.
func (w *Writer) wrapped(c, term []byte) bool {
	col := w.wrapCol
	if indentOf(c) != col || col >= len(c) || bytes.IndexByte(c[:col], '\t') >= 0 {
		w.wrapCol = 0
		return false
	}
	w.emit(c[:col], []byte(Placeholder), term)
	return true
}
