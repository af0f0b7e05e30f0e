package redact

import (
	"bytes"
	"regexp"
)

// A Kubernetes Secret holds a secret under every key of its data and
// stringData, whatever the key is called (DB_CONN, signing, webhook); a
// ConfigMap's data holds none. kubectl prints a document's keys in order
// (apiVersion, data, kind, ...): the kind comes after the data, so the
// data's lines are held back until the kind tells what they are (the
// held lines are bounded; a document that never says is not a Secret).

var dataKeyLine, kindLine, dataValueLine *regexp.Regexp

func compileK8sSecret() {
	dataKeyLine = regexp.MustCompile(`^([ \t]*(?:-[ \t]+)?)["']?(?:data|stringData)["']?[ \t]*:[ \t]*\{?[ \t]*$`)
	kindLine = regexp.MustCompile(`^([ \t]*(?:-[ \t]+)?)["']?kind["']?[ \t]*:[ \t]*["']?([A-Za-z]+)["']?[ \t]*,?[ \t]*$`)
	dataValueLine = regexp.MustCompile(`^([ \t]*["']?[A-Za-z0-9_.\-/]+["']?[ \t]*:[ \t]*)(.*?)[ \t]*$`)
}

// publicSecretKeys are the keys Kubernetes' own Secret types give to
// what is not secret: basic-auth's username, a service account token's
// ca.crt and namespace, tls' certificate.
var publicSecretKeys = map[string]bool{"username": true, "ca.crt": true, "namespace": true, "tls.crt": true}

// maxHold bounds the lines held back while a document's kind is unknown.
const maxHold = 1 << 20

// b64Begin is base64 of "-----BEGIN": a key block, which base64PEM
// judges.
var b64Begin = []byte("LS0tLS1CRUdJTi")

// secretData is the state of a data or stringData block.
type secretData struct {
	col     int  // the data key's column; deeper lines are its entries
	active  bool // inside the block (or the document that holds it)
	holding bool // the kind is not known yet: lines are held
	secret  bool // the document is a Secret
	hold    [][]byte
	bytes   int
}

// docKind is the kind the current document stated, and at which column.
type docKind struct {
	kind string
	col  int
}

// watchKind records a document's kind, and forgets it where the
// document ends.
func (w *Writer) watchKind(c []byte) {
	k := lineKey(c)
	if bytes.HasPrefix(k, []byte("---")) && len(bytes.TrimSpace(k)) == 3 || w.kind8.kind != "" && indentOf(c) < w.kind8.col {
		w.kind8 = docKind{}
	}
	if !bytes.HasPrefix(k, []byte("kind")) {
		return
	}
	if m := kindLine.FindSubmatchIndex(c); m != nil {
		w.kind8 = docKind{string(c[m[4]:m[5]]), m[3]}
	}
}

// startData begins a data block at a line naming one, if c is one.
func (w *Writer) startData(c []byte) {
	if k := lineKey(c); !bytes.HasPrefix(k, []byte("data")) && !bytes.HasPrefix(k, []byte("stringData")) {
		return
	}
	m := dataKeyLine.FindSubmatchIndex(c)
	if m == nil {
		return
	}
	col := m[3]
	d := secretData{col: col, active: true}
	switch {
	case w.kind8.kind != "" && w.kind8.col == col:
		d.secret = w.kind8.kind == "Secret"
	case bytes.Contains(c, []byte("stringData")):
		d.secret = true // only a Secret has stringData
	default:
		d.holding = true
	}
	w.data = d
}

// holdLine holds c while the kind of its document is unknown; it returns
// false when c is not held (no block waits).
func (w *Writer) holdLine(c, term []byte) bool {
	d := &w.data
	if !d.holding {
		return false
	}
	l := make([]byte, 0, len(c)+len(term))
	l = append(append(l, c...), term...)
	d.hold = append(d.hold, l)
	d.bytes += len(l)
	t := bytes.TrimSpace(c)
	switch {
	case bytes.HasPrefix(lineKey(c), []byte("kind")) && kindCol(c) == d.col:
		m := kindLine.FindSubmatch(c)
		w.release(string(m[2]) == "Secret")
	case bytes.Equal(t, []byte("---")), len(t) > 0 && indentOf(c) < d.col, d.bytes > maxHold:
		w.release(false)
	}
	return true
}

func kindCol(c []byte) int {
	m := kindLine.FindSubmatchIndex(c)
	if m == nil {
		return -1
	}
	return m[3]
}

// release replays the held lines, now that the document's kind is known.
func (w *Writer) release(secret bool) {
	d := &w.data
	held := d.hold
	d.hold, d.bytes, d.holding, d.secret = nil, 0, false, secret
	for _, l := range held {
		end := len(l)
		if end > 0 && l[end-1] == '\n' {
			end--
			if end > 0 && l[end-1] == '\r' {
				end--
			}
		}
		w.line(l[:end], l[end:])
	}
}

// dataEntry handles a line inside a data block; it returns false when the
// line is not one of its entries (the block ended).
func (w *Writer) dataEntry(c, term []byte) bool {
	d := &w.data
	if !d.active {
		return false
	}
	if indentOf(c) <= d.col {
		d.active = false
		return false
	}
	if !d.secret {
		return false
	}
	m := dataValueLine.FindSubmatchIndex(c)
	if m == nil {
		return false
	}
	key := bytes.Trim(bytes.TrimSpace(bytes.TrimRight(bytes.TrimSpace(c[:m[4]]), ":")), `"'`)
	if publicSecretKeys[string(key)] {
		return false
	}
	kind := kindOf(string(key))
	if kind == "" {
		kind = KindSecret
	}
	v := c[m[4]:m[5]]
	if len(v) > 0 && (v[0] == '|' || v[0] == '>') {
		w.startBlock(c, term, len(leading(c)), kind)
		return true
	}
	end := m[5]
	if bytes.HasSuffix(v, []byte(",")) {
		v, end = v[:len(v)-1], end-1
	}
	// An encoded key block is the base64 PEM rule's (a private key goes,
	// a certificate stays).
	if len(v) == 0 || bytes.Contains(v, b64Begin) || !secretValue("value", KindSecret, v) {
		return false
	}
	w.count(kind)
	w.emit(c[:m[4]], quoted(v), c[end:], term)
	return true
}

// jsonFrame is an object or array open on a line of JSON.
type jsonFrame struct {
	obj    bool
	key    string // the member being read
	kind   string // the object's "kind"
	inData bool   // the object is a data or stringData member
	spans  []dataSpan
}

type dataSpan struct {
	s, e int
	key  string
}

// jsonSecretData redacts the data and stringData values of every Secret
// written whole on this line ({"kind":"Secret",...,"data":{...}}), in a
// list too; a ConfigMap's beside it stays.
func (w *Writer) jsonSecretData(c []byte) []byte {
	var stack []jsonFrame
	var found []dataSpan
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '{':
			in := false
			if n := len(stack); n > 0 && stack[n-1].obj {
				k := stack[n-1].key
				in = k == "data" || k == "stringData"
			}
			stack = append(stack, jsonFrame{obj: true, inData: in})
		case '[':
			stack = append(stack, jsonFrame{})
		case '}', ']':
			if len(stack) == 0 {
				continue
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.obj && f.kind == "Secret" {
				found = append(found, f.spans...)
			}
		case '"':
			e := scanValue(c, i)
			if e < 0 {
				return c
			}
			k := e
			for k < len(c) && (c[k] == ' ' || c[k] == '\t') {
				k++
			}
			if n := len(stack); n > 0 && stack[n-1].obj {
				top := &stack[n-1]
				str := string(c[i+1 : max(i+1, e-1)])
				switch {
				case k < len(c) && c[k] == ':':
					top.key = str
				case top.key == "kind":
					top.kind = str
				case top.inData && n > 1:
					stack[n-2].spans = append(stack[n-2].spans, dataSpan{i, e, top.key})
				}
			}
			i = e - 1
		}
	}
	if found == nil {
		return c
	}
	var out []byte
	last := 0
	for _, sp := range found {
		v := c[sp.s:sp.e]
		if sp.s < last || publicSecretKeys[sp.key] || bytes.Contains(v, b64Begin) || !secretValue("value", KindSecret, v) {
			continue
		}
		kind := kindOf(sp.key)
		if kind == "" {
			kind = KindSecret
		}
		w.count(kind)
		out = append(out, c[last:sp.s]...)
		out = append(out, quoted(v)...)
		last = sp.e
	}
	if last == 0 {
		return c
	}
	return append(out, c[last:]...)
}

// lineKey is where a line's key would start: past the indentation, a YAML
// list's "- " and an opening quote (the regular expressions above are
// asked only when it starts as theirs do).
func lineKey(c []byte) []byte {
	c = c[len(leading(c)):]
	if len(c) > 1 && c[0] == '-' && (c[1] == ' ' || c[1] == '\t') {
		c = c[len(leading(c[1:]))+1:]
	}
	if len(c) > 0 && (c[0] == '"' || c[0] == '\'') {
		c = c[1:]
	}
	return c
}
