package redact

import "bytes"

// A literal assigned to a variable on one line and handed to
// ConvertTo-SecureString -AsPlainText on a later one ($p = '…' then
// ConvertTo-SecureString $p): the output from the assignment on is held
// back for a few lines, so that the literal can still go when the
// variable is used so.

// heldLiteral is a literal assignment in w.out not yet written.
type heldLiteral struct {
	name []byte // the variable, without its $
	s, e int    // the literal's span in w.out, quotes included
	line int    // w.lineNo when it was seen
}

// Bounds of what is held back: lines after the assignment, and bytes.
const (
	heldLines = 16
	heldBytes = 32 << 10
)

// noteLiterals records the literal assignments of the line r about to
// be appended to w.out ($name = '…', $name = "…").
func (w *Writer) noteLiterals(r []byte) {
	base := len(w.out)
	for off := 0; off < len(r); {
		i := bytes.IndexByte(r[off:], '$')
		if i < 0 {
			return
		}
		i += off
		off = i + 1
		if i > 0 && !(isSpace(r[i-1]) || r[i-1] == ';' || r[i-1] == '(' || r[i-1] == '{') {
			continue
		}
		k := i + 1
		for k < len(r) && (isKeyChar(r[k]) && r[k] != '.' && r[k] != '-') {
			k++
		}
		if k == i+1 || k-i > 65 {
			continue
		}
		name := r[i+1 : k]
		j := k
		for j < len(r) && (r[j] == ' ' || r[j] == '\t') {
			j++
		}
		if j+1 >= len(r) || r[j] != '=' || r[j+1] == '=' {
			continue
		}
		j++
		for j < len(r) && (r[j] == ' ' || r[j] == '\t') {
			j++
		}
		if j >= len(r) || r[j] != '"' && r[j] != '\'' && entityQuote(r[j:]) == "" {
			continue
		}
		e := scanValue(r, j)
		if e < 0 || !secretValue("", KindPassword, r[j:e]) {
			continue
		}
		if len(w.held) >= 64 {
			w.held = w.held[1:]
		}
		w.held = append(w.held, heldLiteral{name: append([]byte(nil), name...), s: base + j, e: base + e, line: w.lineNo})
		off = e
	}
}

// redactHeld redacts the held literals assigned to $name.
func (w *Writer) redactHeld(name []byte) {
	for i := 0; i < len(w.held); i++ {
		h := w.held[i]
		if !bytes.EqualFold(h.name, name) {
			continue
		}
		repl := quoted(w.out[h.s:h.e])
		d := len(repl) - (h.e - h.s)
		w.out = append(w.out[:h.s], append(repl, w.out[h.e:]...)...)
		w.count(KindPassword)
		w.held = append(w.held[:i], w.held[i+1:]...)
		for k := range w.held {
			if w.held[k].s > h.s {
				w.held[k].s += d
				w.held[k].e += d
			}
		}
		i--
	}
}

// expireHeld drops the held literals too far behind the line at hand,
// at each line (so that a Writer fed in pieces and Text agree).
func (w *Writer) expireHeld() {
	keep := w.held[:0]
	for _, h := range w.held {
		if w.lineNo-h.line <= heldLines && len(w.out)-h.s <= heldBytes {
			keep = append(keep, h)
		}
	}
	w.held = keep
}

// heldFrom returns where in w.out the output still held back starts.
func (w *Writer) heldFrom() int {
	if w.closed {
		w.held = w.held[:0]
	}
	from := len(w.out)
	for _, h := range w.held {
		from = min(from, h.s)
	}
	return from
}
