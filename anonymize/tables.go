package anonymize

import (
	"bytes"
	"strings"
)

// Tables state names in columns whose header says what they hold:
// kubectl's (NAME of "get nodes", NODE and NAMESPACE of "get pods -o
// wide"), query user's USERNAME, PowerShell's Format-Table (a header over
// a line of dashes: MachineName, UserName) and Export-Csv's
// ("MachineName","UserId"). The rows follow the header up to a blank line
// or a prompt.

// maxTableRows bounds the rows read after one header.
const maxTableRows = 10000

// A column of a table: where it starts and what its values state.
type tableColumn struct {
	start int
	key   string // a key harvestKind knows, or "namespace"
}

// tableToken: a header (in lower case) that may name a column stating a
// name; the others are not looked at further.
func tableToken(low []byte) bool {
	for _, t := range [][]byte{[]byte("name"), []byte("node"), []byte("host"), []byte("user"), []byte("machine"), []byte("comput"), []byte("domain")} {
		if bytes.Contains(low, t) {
			return true
		}
	}
	return false
}

// harvestTable reads the table whose header is text[start:end], if it is
// one with a column that states a name, and returns where its rows end
// (end when there is none).
func (a *Anonymizer) harvestTable(text []byte, start, end int) int {
	header := bytes.TrimRight(text[start:end], "\r")
	next, nextEnd := lineAfter(text, end)
	var cols []tableColumn
	var starts []int
	csv := false
	switch {
	case upperHeader(header) && len(columnStarts(header)) >= 3:
		// Three columns at least: an environment table's row in capitals
		// (COMPUTERNAME   TSWIN-APP05) is not a header.
		starts = columnStarts(header)
		cols = alignedColumns(header, starts)
	case bytes.HasPrefix(bytes.ToLower(header), []byte("user accounts for")):
		// net user: a line of dashes (after a blank one), then the grid.
		n, e := next, nextEnd
		for i := 0; i < 2 && n < len(text) && len(bytes.TrimSpace(text[n:e])) == 0; i++ {
			n, e = lineAfter(text, e)
		}
		if l := bytes.TrimSpace(text[n:e]); len(l) > 0 && len(bytes.Trim(l, "-")) == 0 {
			a.harvestUserGrid(text, e)
		}
		return end
	case next < len(text) && dashLine(text[next:nextEnd]):
		starts = dashStarts(bytes.TrimRight(text[next:nextEnd], "\r"))
		cols = alignedColumns(header, starts)
		next, nextEnd = lineAfter(text, nextEnd)
	case bytes.IndexByte(header, ',') > 0:
		cols, csv = csvColumns(header), true
		if cols == nil && nameValueHeader(header, nil, true) {
			a.harvestNameValue(text, next, nextEnd, nil, true)
			return end
		}
	}
	if nameValueHeader(header, starts, csv) {
		a.harvestNameValue(text, next, nextEnd, starts, csv)
		return end
	}
	if cols == nil && len(starts) > 1 {
		// kubectl get ns, kubectl top nodes, Get-LocalUser: the Name
		// column's kind is the command's before it.
		if k := commandKey(text, start); k != "" && normKey(string(bytes.TrimSpace(header[starts[0]:min(len(header), starts[1])]))) == "name" {
			cols = []tableColumn{{start: 0, key: k}}
		}
	}
	if cols == nil {
		return end
	}
	rows := 0
	for ; next < len(text) && rows < maxTableRows; next, nextEnd = lineAfter(text, nextEnd) {
		row := bytes.TrimRight(text[next:nextEnd], "\r")
		if len(bytes.TrimSpace(row)) == 0 || bytes.HasPrefix(row, []byte("PS ")) || bytes.HasPrefix(row, []byte("****")) {
			break
		}
		for _, c := range cols {
			var v string
			if csv {
				v = csvField(row, c.start)
			} else {
				v = cellAt(row, c.start)
			}
			a.harvestCell(c.key, v)
		}
		rows++
		end = nextEnd
	}
	return end
}

func (a *Anonymizer) harvestCell(key, v string) {
	v = strings.TrimLeft(strings.TrimSpace(v), ">")
	if v == "" {
		return
	}
	if n, ok := strings.CutPrefix(v, "system:node:"); ok {
		a.harvest("node", n)
		return
	}
	if n, ok := strings.CutPrefix(v, "node/"); ok {
		a.harvest("node", n)
		return
	}
	if nk := normKey(key); (nk == "namespace" || nk == "node") && !dns1123(v) {
		return // kubectl prints these in lower case: a line past the table's end
	}
	if key == "namespace" {
		if !systemNamespace(v) {
			a.AddName(KindNamespace, v)
		}
		return
	}
	a.harvest(key, v)
}

// nameValueHeader: PowerShell's Name/Value table (Get-ChildItem env:,
// a hashtable), as a table or CSV: each row is a key and its value.
func nameValueHeader(h []byte, starts []int, csv bool) bool {
	if csv {
		return normKey(strings.ReplaceAll(string(bytes.TrimSpace(h)), `"`, "")) == "name,value"
	}
	return len(starts) == 2 && normKey(string(bytes.TrimSpace(h[starts[0]:starts[1]]))) == "name" &&
		normKey(string(bytes.TrimSpace(h[starts[1]:]))) == "value"
}

// harvestNameValue reads the rows of a Name/Value table from the line at
// next: each value is what its name states.
func (a *Anonymizer) harvestNameValue(text []byte, next, nextEnd int, starts []int, csv bool) {
	for rows := 0; next < len(text) && rows < maxTableRows; rows++ {
		row := bytes.TrimRight(text[next:nextEnd], "\r")
		if len(bytes.TrimSpace(row)) == 0 || bytes.HasPrefix(row, []byte("PS ")) {
			return
		}
		if csv {
			a.harvest(csvField(row, 0), csvField(row, 1))
		} else if len(row) > starts[1] {
			a.harvest(string(bytes.TrimSpace(row[:starts[1]])), string(bytes.TrimSpace(row[starts[1]:])))
		}
		next, nextEnd = lineAfter(text, nextEnd)
	}
}

// harvestUserGrid reads net user's list of accounts, words in columns
// after the dashes that end at nextEnd, up to "The command completed".
func (a *Anonymizer) harvestUserGrid(text []byte, nextEnd int) {
	for n, e, rows := 0, nextEnd, 0; rows < maxTableRows; rows++ {
		n, e = lineAfter(text, e)
		if n >= len(text) {
			return
		}
		row := strings.TrimSpace(string(text[n:e]))
		if row == "" || strings.HasPrefix(strings.ToLower(row), "the command") {
			return
		}
		for _, u := range strings.Fields(row) {
			if validName(u) && !builtinUsers[strings.ToLower(u)] {
				a.AddName(KindUser, u)
			}
		}
	}
}

// commandKey: the line before start runs kubectl get or top on nodes or
// namespaces, or Get-LocalUser: the key the Name column's values take
// ("node", "namespace", "username").
func commandKey(text []byte, start int) string {
	if start == 0 {
		return ""
	}
	// The command's line, past blank ones (PowerShell prints one first).
	e := start - 1
	prev := text[bytes.LastIndexByte(text[:e], '\n')+1 : e]
	for i := 0; i < 2 && len(bytes.TrimSpace(prev)) == 0 && e > 0; i++ {
		e = bytes.LastIndexByte(text[:e], '\n')
		if e < 0 {
			return ""
		}
		prev = text[bytes.LastIndexByte(text[:e], '\n')+1 : e]
	}
	f := strings.Fields(strings.ToLower(string(prev)))
	for i, w := range f {
		if strings.HasSuffix(w, ">") && i+1 < len(f) && f[i+1] == "get-localuser" {
			return "username"
		}
		if !strings.HasSuffix(w, "kubectl") && !strings.HasSuffix(w, "kubectl.exe") {
			continue
		}
		for j := i + 1; j+1 < len(f); j++ {
			if f[j] != "get" && f[j] != "top" {
				continue
			}
			for _, r := range f[j+1:] {
				if strings.HasPrefix(r, "-") {
					continue
				}
				switch r {
				case "no", "node", "nodes":
					return "node"
				case "ns", "namespace", "namespaces":
					return "namespace"
				}
				return ""
			}
		}
	}
	return ""
}

// lineAfter returns the line after the one ending at end: its start and
// end (without the newline).
func lineAfter(text []byte, end int) (int, int) {
	s := min(end+1, len(text))
	e := len(text)
	if i := bytes.IndexByte(text[s:], '\n'); i >= 0 {
		e = s + i
	}
	return s, e
}

// upperHeader: kubectl's and query user's header, words in capitals
// (units in parentheses aside: CPU(cores)) and columns two spaces apart.
func upperHeader(l []byte) bool {
	t := bytes.TrimLeft(l, " ")
	if len(t) < 4 || t[0] < 'A' || t[0] > 'Z' || !bytes.Contains(t, []byte("  ")) {
		return false
	}
	paren := false
	for _, c := range t {
		switch {
		case c == '(':
			paren = true
		case c == ')':
			paren = false
		case c >= 'a' && c <= 'z':
			if !paren {
				return false
			}
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte(" -_#%", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// dns1123: a Kubernetes object's name, lower-case labels.
func dns1123(v string) bool {
	if v == "" || len(v) > 253 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// columnStarts are where the header's columns start: its first word, and
// each word after two spaces or more (NOMINATED NODE is one column).
func columnStarts(h []byte) []int {
	var starts []int
	for i := 0; i < len(h); i++ {
		if h[i] != ' ' && (i == 0 || h[i-1] == ' ' && (i < 2 || h[i-2] == ' ' || len(starts) == 0)) {
			starts = append(starts, i)
		}
	}
	return starts
}

// dashLine: Format-Table's line of dashes under its header (tasklist's
// and whoami /all's of '=').
func dashLine(l []byte) bool {
	l = bytes.TrimRight(l, "\r ")
	return len(l) >= 2 && len(bytes.Trim(l, "-= ")) == 0 && len(dashStarts(l)) >= 2
}

func dashStarts(l []byte) []int {
	var starts []int
	for i := range l {
		if (l[i] == '-' || l[i] == '=') && (i == 0 || l[i-1] == ' ') {
			starts = append(starts, i)
		}
	}
	return starts
}

// alignedColumns are the columns of a header, split at starts, that state
// a name; nil if none does.
func alignedColumns(h []byte, starts []int) []tableColumn {
	if len(starts) < 2 {
		return nil
	}
	names := make([]string, len(starts))
	for i, s := range starts {
		e := len(h)
		if i+1 < len(starts) {
			e = min(starts[i+1], len(h))
		}
		if s < e {
			names[i] = strings.TrimSpace(string(h[s:e]))
		}
	}
	var cols []tableColumn
	for i, n := range names {
		if k := columnKey(n, names); k != "" {
			cols = append(cols, tableColumn{start: starts[i], key: k})
		}
	}
	if len(cols) > 0 && cols[0].start == starts[0] {
		cols[0].start = 0 // query user's ">name" starts before its header
	}
	return cols
}

// csvColumns are the columns of a CSV header that state a name, each at
// its index (start); nil unless every field is a column name.
func csvColumns(h []byte) []tableColumn {
	fields := strings.Split(string(h), ",")
	if len(fields) < 2 || len(fields) > 200 {
		return nil
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		f = strings.Trim(strings.TrimSpace(f), `"`)
		if f == "" || len(f) > 60 || !(f[0] >= 'A' && f[0] <= 'Z' || f[0] >= 'a' && f[0] <= 'z') || strings.ContainsAny(f, "\"\t:=/\\<>{}") {
			return nil // tasklist's Session# and Mem Usage are column names; a row of values is not
		}
		names[i] = f
	}
	var cols []tableColumn
	for i, n := range names {
		if k := columnKey(n, names); k != "" {
			cols = append(cols, tableColumn{start: i, key: k})
		}
	}
	return cols
}

// columnKey: what a column's values state, as a key harvest knows. NAME
// is a Node's in kubectl's "get nodes" (its ROLES or INTERNAL-IP beside).
func columnKey(name string, all []string) string {
	k := normKey(name)
	switch k {
	case "namespace":
		return "namespace"
	case "object", "involvedobject", "requestor":
		return name // node/NAME, system:node:NAME
	case "name":
		for _, o := range all {
			if n := normKey(o); n == "roles" || n == "internalip" {
				return "node"
			}
		}
		return ""
	}
	if harvestKind(name) != "" {
		return name
	}
	return ""
}

// cellAt is the word of row at a column's start (or that runs into it).
func cellAt(row []byte, start int) string {
	if start >= len(row) {
		return ""
	}
	for start == 0 && start < len(row)-1 && (row[start] == ' ' || row[start] == '>') {
		start++ // the first column's indent, query user's current session
	}
	s := start
	for s > 0 && row[s-1] != ' ' && row[s-1] != '\t' {
		s--
	}
	e := start
	for e < len(row) && row[e] != ' ' && row[e] != '\t' {
		e++
	}
	return string(row[s:e])
}

// csvField is field i of a CSV row (quotes removed, "" unescaped).
func csvField(row []byte, i int) string {
	n, inQ := 0, false
	var b strings.Builder
	for _, c := range row {
		switch {
		case c == '"':
			inQ = !inQ
			continue
		case c == ',' && !inQ:
			if n == i {
				return b.String()
			}
			n++
			continue
		}
		if n == i {
			b.WriteByte(c)
		}
	}
	return b.String()
}
