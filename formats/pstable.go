package formats

import (
	"slices"
	"strings"
)

// maxTableColumns bounds a table's columns (PowerShell prints a handful).
const maxTableColumns = 64

// psTable is one table: its column names and rows as objects.
type psTable struct {
	columns []string
	rows    []obj
	kind    objectKind // what the command before it lists, when a prompt shows it
}

// parseFormatTables returns every table in text.
func parseFormatTables(text string) []psTable {
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	var out []psTable
	kind := kindUnknown
	for i := 0; i+1 < len(lines); i++ {
		if m := psPrompt().FindString(lines[i]); m != "" {
			kind = commandKind(lines[i][len(m):])
			continue
		}
		starts, names := tableHeader(lines[i], lines[i+1])
		if starts == nil {
			continue
		}
		t := psTable{columns: names, kind: kind}
		j := i + 2
		for ; j < len(lines); j++ {
			l := strings.TrimRight(lines[j], " \t")
			if strings.TrimSpace(l) == "" || psPrompt().MatchString(l) || len(l) > maxConsoleLine {
				// A blank line ends a table only when another header or
				// the end follows; PowerShell prints one table per type.
				if strings.TrimSpace(l) == "" && j+1 < len(lines) && strings.TrimSpace(lines[j+1]) != "" && !psPrompt().MatchString(lines[j+1]) {
					if s, _ := tableHeader(lines[j+1], lineAt(lines, j+2)); s == nil {
						continue
					}
				}
				break
			}
			t.rows = append(t.rows, tableRow(l, starts, names))
		}
		out = append(out, t)
		i = j
	}
	return out
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// tableHeader recognises a header line and its dash line; it returns the
// start column and name of each column.
func tableHeader(header, dashes string) ([]int, []string) {
	header, dashes = strings.TrimRight(header, " \t"), strings.TrimRight(dashes, " \t")
	if len(dashes) < 2 || len(header) > maxConsoleLine || strings.Trim(dashes, "- ") != "" || !strings.Contains(dashes, "-") {
		return nil, nil
	}
	var starts []int
	var names []string
	for i := 0; i < len(dashes); {
		if dashes[i] != '-' {
			i++
			continue
		}
		j := i
		for j < len(dashes) && dashes[j] == '-' {
			j++
		}
		if j > len(header) {
			return nil, nil
		}
		name := strings.TrimSpace(header[i:j])
		if name == "" || strings.Contains(name, " ") && !strings.HasPrefix(name, "@{") {
			return nil, nil // the dashes do not underline the header's words
		}
		starts = append(starts, i)
		names = append(names, name)
		i = j
	}
	// Format-Table fits a console: a "table" of hundreds of columns is
	// not one, and cutting every row at each would cost rows × columns.
	if len(names) == 0 || len(names) > maxTableColumns {
		return nil, nil
	}
	return starts, names
}

// tableRow cuts a row at the column starts, counted in console cells (a
// wide character takes two, so "réseau" or CJK names do not shift the
// columns after them). A boundary that falls inside a word moves left to
// that word's start, but not past the previous column's start: a
// right-aligned value wider than its header spills left (columns are always
// separated by a space).
func tableRow(l string, starts []int, names []string) obj {
	rs := []rune(l)
	cell := make([]int, len(rs)+1) // cell offset of each rune
	for i, r := range rs {
		w := 1
		if isWide(r) {
			w = 2
		}
		cell[i+1] = cell[i] + w
	}
	bounds := make([]int, len(starts)) // rune indexes
	for c, s := range starts {
		b, _ := slices.BinarySearch(cell[:len(rs)], s)
		floor := 0
		if c > 0 {
			floor = bounds[c-1] + 1
		}
		for c > 0 && b > floor && b < len(rs) && rs[b-1] != ' ' && rs[b] != ' ' {
			b--
		}
		bounds[c] = b
	}
	o := obj{}
	for c, name := range names {
		from, to := bounds[c], len(rs)
		if c+1 < len(bounds) {
			to = bounds[c+1]
		}
		if from >= to {
			continue
		}
		v := strings.TrimSpace(string(rs[from:to]))
		if v == "" {
			continue
		}
		if strings.HasSuffix(v, "...") || strings.HasSuffix(v, "…") {
			o[name] = hidden{"cut short by the table's column width"}
			continue
		}
		o[name] = psValue(v, 0)
	}
	return o
}

// commandKind is what an HNS cmdlet on a prompt line lists.
func commandKind(cmd string) objectKind {
	m := hnsCommand().FindStringSubmatch(cmd)
	if m == nil {
		return kindUnknown
	}
	switch strings.ToLower(m[1]) {
	case "network":
		return kindNetwork
	case "endpoint":
		return kindEndpoint
	case "policylist":
		return kindPolicyList
	case "namespace":
		return kindNamespace
	}
	return kindUnknown
}
