package console

import (
	"io"
	"unicode/utf8"
)

// ascii is what diag's own typographic characters become in a code page
// that lacks them; any other character it lacks becomes '?'.
var ascii = map[rune]string{'→': "->", '·': ".", '—': "-", '–': "-", '…': "...", '✗': "x", '≥': ">=", '×': "x", '§': "S"}

// Writer returns w when cp is 0, else a writer that turns UTF-8 text into
// code page cp (what RedirectedCodePage says the reader expects).
func Writer(w io.Writer, cp uint32) io.Writer {
	if cp == 0 {
		return w
	}
	return &cpWriter{w: w, cp: cp, cache: map[rune][]byte{}}
}

type cpWriter struct {
	w     io.Writer
	cp    uint32
	cache map[rune][]byte
	rest  []byte // the start of a character cut by the end of a Write
}

func (c *cpWriter) Write(p []byte) (int, error) {
	in := append(c.rest, p...)
	c.rest = nil
	out := make([]byte, 0, len(in))
	for len(in) > 0 {
		r, size := utf8.DecodeRune(in)
		if r == utf8.RuneError && size < 2 && !utf8.FullRune(in) {
			c.rest = append([]byte(nil), in...)
			break
		}
		in = in[size:]
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		b, ok := c.cache[r]
		if !ok {
			b = c.encode(r)
			c.cache[r] = b
		}
		out = append(out, b...)
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// encode is r in the code page, else its ASCII stand-in, else '?'.
func (c *cpWriter) encode(r rune) []byte {
	if b, ok := encodeRune(r, c.cp); ok {
		return b
	}
	if s, ok := ascii[r]; ok {
		return []byte(s)
	}
	return []byte("?")
}
