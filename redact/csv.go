package redact

import (
	"bytes"
	"strings"
)

// CSV (Export-Csv, ConvertTo-Csv, a credential list; its fields apart by
// commas, or by semicolons where the culture's list separator is one) names a secret by its
// header: the values under a column named for a secret ("Password") go,
// and in Name/Value rows (the environment exported) the Value goes where
// the Name names a secret. Fields are read apart: a row's fields are no
// key and value of each other ("Password","Server" in a header).

// csvTable is the header of the CSV being read.
type csvTable struct {
	fields int      // the header's number of fields; 0: no table
	sep    byte     // the delimiter: ',' or ';' (Export-Csv -UseCulture in many locales)
	kinds  []string // per column: the kind of secret its name says, or ""
	name   int      // the Name (or Key) column, -1 if none
	value  int      // the Value column, -1 if none
}

// maxCSVHeader bounds the line tried as a header.
const maxCSVHeader = 4096

// csvFields splits a CSV line into fields (spans of c, quotes included);
// ok is false for a line that is no CSV record (a quote left open).
func csvFields(c []byte, sep byte, spans [][2]int) ([][2]int, bool) {
	spans = spans[:0]
	for i := 0; ; {
		s := i
		if i < len(c) && c[i] == '"' {
			i++
			for {
				if i >= len(c) {
					return spans, false
				}
				if c[i] == '"' {
					if i+1 < len(c) && c[i+1] == '"' {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
			if i < len(c) && c[i] != sep {
				return spans, false
			}
		} else {
			for i < len(c) && c[i] != sep {
				if c[i] == '"' {
					return spans, false
				}
				i++
			}
		}
		spans = append(spans, [2]int{s, i})
		if i >= len(c) {
			return spans, true
		}
		i++ // the delimiter
	}
}

// unquoteField returns a field without its quotes.
func unquoteField(f []byte) []byte {
	if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' {
		return f[1 : len(f)-1]
	}
	return f
}

// headerName: a column's name, a word that starts with a letter.
func headerName(f []byte) bool {
	if len(f) == 0 || len(f) > 64 || !(f[0] >= 'A' && f[0] <= 'Z' || f[0] >= 'a' && f[0] <= 'z') {
		return false
	}
	for _, b := range f {
		if !(isKeyChar(b) || b == ' ' || b == ':') {
			return false
		}
	}
	return true
}

// csvHeader reads c as a CSV header naming a secret column or Name and
// Value columns.
func (w *Writer) csvHeader(c, lower []byte) bool {
	if len(c) > maxCSVHeader || !hasAny(lower, "value", "pass", "pw", "secret", "token", "key", "auth", "cred") {
		return false
	}
	sep := byte(',')
	if bytes.IndexByte(c, ',') < 0 {
		sep = ';'
	}
	spans, ok := csvFields(c, sep, nil)
	if !ok || len(spans) < 2 {
		return false
	}
	t := csvTable{fields: len(spans), sep: sep, kinds: make([]string, len(spans)), name: -1, value: -1}
	secret := false
	for i, s := range spans {
		f := unquoteField(c[s[0]:s[1]])
		if !headerName(f) {
			return false
		}
		switch strings.ToLower(string(f)) {
		case "name":
			t.name = i
		case "key":
			if t.name < 0 {
				t.name = i
			}
		case "value":
			t.value = i
		default:
			if t.kinds[i] = kindOf(string(f)); t.kinds[i] != "" {
				secret = true
			}
		}
	}
	if !secret && (t.name < 0 || t.value < 0) {
		return false
	}
	if len(spans) == 2 && t.kinds[0] != "" {
		return false // "token","abc…": a key and its value, not a header
	}
	w.csv = t
	return true
}

// csvRow redacts a row of the table; false when c is no row of it.
func (w *Writer) csvRow(c []byte) ([]byte, bool) {
	t := &w.csv
	spans, ok := csvFields(c, t.sep, nil)
	if !ok || len(spans) != t.fields {
		return nil, false
	}
	nameKind := ""
	if t.name >= 0 && t.value >= 0 {
		nameKind = kindOf(string(unquoteField(c[spans[t.name][0]:spans[t.name][1]])))
	}
	out := make([]byte, 0, len(c))
	for i, s := range spans {
		if i > 0 {
			out = append(out, t.sep)
		}
		f := c[s[0]:s[1]]
		kind := t.kinds[i]
		if i == t.value && nameKind != "" {
			kind = nameKind
		}
		if kind != "" && secretValue("", kind, unquoteField(f)) {
			w.count(kind)
			out = append(out, quoted(f)...)
			continue
		}
		// Whatever else a field holds (a command line in an event's
		// message) is read as a line of its own.
		if i == t.name || len(f) < 3 {
			out = append(out, f...)
			continue
		}
		out = append(out, w.rules(f, bytes.Clone(w.lowerOf(f)))...)
	}
	return out, true
}
