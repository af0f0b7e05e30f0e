package formats

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// hidden is a value the text does not show.
type hidden struct{ why string }

// MarshalJSON shows why, where raw values reach diag snapshot's output.
func (h hidden) MarshalJSON() ([]byte, error) { return json.Marshal("(" + h.why + ")") }

const (
	hiddenPlaceholder = "PowerShell printed System.Object[] instead of the value"
	hiddenTruncated   = "PowerShell cut the list short ($FormatEnumerationLimit)"
	hiddenCut         = "cut off in the paste"
	hiddenNotShown    = "not shown in the paste"
)

var (
	psPrompt = lazyRegexp(`^PS [^>]*>`)
	psHidden = lazyRegexp(`^System\.[A-Za-z0-9_.]+\[\]$`)
	bareWord = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// maxPSDepth bounds nesting (HNS objects nest four deep in Format-List), so
// hostile input costs at most this many passes over a value.
const maxPSDepth = 8

// psRecord is one Format-List record before its values are interpreted:
// each key with the physical lines its value was printed on.
type psRecord struct {
	command string // the prompt's command before it, if the paste shows one
	order   []string
	lines   map[string][]string // key -> value lines, the first after "Key : "
	phys    map[string][]string // key -> the physical lines as printed (for the wrap width)
}

// psParse is what parseFormatListNotes found: the records, the prompt commands
// seen, and notes on anything it had to repair or could only read in part.
type psParse struct {
	objs     []obj
	selected []bool   // per object: the command chose the properties (Select, fl A,B)
	commands []string // the commands after PowerShell prompts, in order
	notes    []string
}

// parseFormatListNotes returns one object per Format-List record. Text that
// is not a record (prose around a paste, prompts) is skipped.
func parseFormatListNotes(text string) psParse {
	var res psParse
	var recs []*psRecord
	var cur *psRecord
	var lastKey, lastCmd string
	var wrapped []wrapBreak // each place a value continues on the next line
	flush := func() {
		if cur != nil {
			recs = append(recs, cur)
		}
		cur, lastKey = nil, ""
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r \t")
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case psPrompt().MatchString(line):
			flush()
			lastCmd = strings.TrimSpace(line[len(psPrompt().FindString(line)):])
			res.commands = append(res.commands, lastCmd)
		default:
			if key, value, ok := psKeyValue(line); ok {
				if cur == nil {
					cur = &psRecord{command: lastCmd, lines: map[string][]string{}, phys: map[string][]string{}}
				}
				if _, dup := cur.lines[key]; !dup {
					cur.order = append(cur.order, key)
				}
				lastKey = key
				cur.lines[key] = []string{strings.TrimSpace(value)}
				cur.phys[key] = []string{line}
				continue
			}
			if cur == nil {
				continue // prose, not a record
			}
			phys := cur.phys[lastKey]
			wrapped = append(wrapped, wrapBreak{phys[len(phys)-1], line})
			cur.lines[lastKey] = append(cur.lines[lastKey], strings.TrimSpace(line))
			cur.phys[lastKey] = append(phys, line)
		}
	}
	flush()
	// A paste cut in the middle of a key line ends in a bare word at column
	// 0 ("MacAddres"): it is not a continuation of the value before it.
	// Unless the line before it filled a fixed-width console: then it is
	// the end of a wrapped value ("Over" / "lay").
	cutKeys := map[*psRecord]string{}
	hard := detectWrap(wrapped)
	for _, r := range recs {
		last := r.order[len(r.order)-1]
		phys := r.phys[last]
		if len(phys) < 2 || !bareWord().MatchString(phys[len(phys)-1]) ||
			hard.hardWidth > 0 && lineWidth(phys[len(phys)-2], hard.byCells) == hard.hardWidth {
			continue
		}
		cutKeys[r] = phys[len(phys)-1]
		r.phys[last] = phys[:len(phys)-1]
		r.lines[last] = r.lines[last][:len(r.lines[last])-1]
		if i := slices.Index(wrapped, wrapBreak{phys[len(phys)-2], phys[len(phys)-1]}); i >= 0 {
			wrapped = slices.Delete(wrapped, i, i+1)
		}
	}
	ws := detectWrap(wrapped)
	if ws.hardWidth > 0 {
		res.notes = append(res.notes, fmt.Sprintf("console wrapping at %d columns split values inside words: rejoined without spaces", ws.hardWidth))
	}
	for ri, r := range recs {
		if k, ok := cutKeys[r]; ok {
			res.notes = append(res.notes, fmt.Sprintf("record %d%s ends in the middle of a key (%q): the paste was cut there; dropped", ri+1, recordLabel(r), k))
		}
		o := obj{}
		for _, k := range r.order {
			var b strings.Builder
			for i, l := range r.lines[k] {
				if i == 0 {
					b.WriteString(l)
					continue
				}
				ws.joinWrapped(&b, r.phys[k][i-1], l)
			}
			v := b.String()
			if fixed, cut := closeCutValue(v); cut {
				v = fixed
				res.notes = append(res.notes, fmt.Sprintf("record %d%s: the value of %s is cut off (no closing brace): kept what is there, the rest is unknown", ri+1, recordLabel(r), k))
			}
			o[k] = psValue(v, 0)
		}
		res.objs = append(res.objs, o)
		res.selected = append(res.selected, selectsProperties(r.command))
	}
	return res
}

// propertySelection finds a pipeline stage that chooses properties:
// `| Select Name, Type`, `| fl Name, ID, Subnets`; `| fl *` shows them all.
var propertySelection = lazyRegexp(`(?i)\|\s*(select(-object)?|fl|format-list)\s+(-property\s+)?([^|]*)`)

// selectsProperties reports a command whose output shows only some of each
// object's fields: the others are unknown, not empty.
func selectsProperties(cmd string) bool {
	for _, m := range propertySelection().FindAllStringSubmatch(cmd, -1) {
		props := strings.TrimSpace(m[4])
		if props != "" && props != "*" && !strings.HasPrefix(props, "-") {
			return true
		}
	}
	return false
}

// recordLabel names a record by its Name or ID line, for notes.
func recordLabel(r *psRecord) string {
	for _, k := range []string{"Name", "ID", "Id"} {
		if l := r.lines[k]; len(l) > 0 && l[0] != "" {
			return " (" + k + " " + l[0] + ")"
		}
	}
	return ""
}

// psCut marks where a value was cut off; psValue turns it into a hidden
// element.
const psCut = "\x00cut"

// closeCutValue repairs a list or hashtable whose closing braces are
// missing (a paste cut in the middle of a value): the element that was being
// printed is replaced by a cut marker and the braces are closed, so what
// came before it is kept.
func closeCutValue(v string) (string, bool) {
	if !strings.HasPrefix(v, "{") && !strings.HasPrefix(v, "@{") {
		return v, false
	}
	var open []bool // per open brace: is it a hashtable's
	lastSep := -1
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '{':
			open = append(open, i > 0 && v[i-1] == '@')
			lastSep = i
		case '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			lastSep = i
		case ';', ',':
			lastSep = i
		}
	}
	depth := len(open)
	if depth == 0 {
		return v, false
	}
	head, frag := v[:lastSep+1], v[lastSep+1:]
	switch k, _, ok := strings.Cut(frag, "="); {
	case ok:
		frag = k + "=" + psCut
	case open[depth-1]:
		frag = "(cut)=" + psCut // a key cut short: the table itself is incomplete
	default:
		frag = psCut
	}
	return head + frag + strings.Repeat("}", depth), true
}

// psKeyValue recognises a record line, "Key<spaces>: value", where the key
// is a property name starting at column 0. It looks only at the key, so a
// huge value costs nothing here.
func psKeyValue(line string) (key, value string, ok bool) {
	i := 0
	for i < len(line) && (line[i] == '_' || line[i] >= 'A' && line[i] <= 'Z' || line[i] >= 'a' && line[i] <= 'z' || i > 0 && line[i] >= '0' && line[i] <= '9') {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	key = line[:i]
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return "", "", false
	}
	rest := line[i+1:]
	if rest != "" && rest[0] != ' ' {
		return "", "", false // "Key:value" is not how Format-List prints
	}
	return key, rest, true
}

// psValue interprets one printed value.
func psValue(s string, depth int) any {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return nil
	case s == psCut:
		return hidden{hiddenCut}
	case psHidden().MatchString(s):
		return hidden{hiddenPlaceholder}
	case depth >= maxPSDepth:
		return s
	case strings.HasPrefix(s, "@{") && strings.HasSuffix(s, "}"):
		m := map[string]any{}
		for _, part := range splitTop(s[2:len(s)-1], ';') {
			k, v, ok := strings.Cut(part, "=")
			if k = strings.TrimSpace(k); ok && k != "" {
				m[k] = psValue(v, depth+1)
			}
		}
		return m
	case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
		inner := strings.TrimSpace(s[1 : len(s)-1])
		truncated := strings.HasSuffix(inner, "...")
		inner = strings.TrimSuffix(inner, "...")
		var list []any
		for _, part := range splitTop(inner, ',') {
			if v := psValue(part, depth+1); v != nil {
				list = append(list, v)
			}
		}
		if truncated {
			list = append(list, hidden{hiddenTruncated})
		}
		return list
	}
	return s
}

// splitTop splits s at sep outside braces.
func splitTop(s string, sep byte) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case sep:
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		parts = append(parts, s[start:])
	}
	return parts
}

// hiddenIn reports whether a field's value, or an element of it, is hidden.
func (o obj) hiddenIn(key string) (string, bool) {
	v, ok := o.get(key)
	if !ok {
		return "", false
	}
	return findHidden(v, 0)
}

func findHidden(v any, depth int) (string, bool) {
	if depth > maxPSDepth {
		return "", false
	}
	switch t := v.(type) {
	case hidden:
		return t.why, true
	case []any:
		for _, e := range t {
			if why, ok := findHidden(e, depth+1); ok {
				return why, true
			}
		}
	case map[string]any:
		for _, e := range t {
			if why, ok := findHidden(e, depth+1); ok {
				return why, true
			}
		}
	}
	return "", false
}

// unknownFields lists the fields of o whose value is hidden, as
// "Field (why)", sorted.
func unknownFields(o obj) []string {
	var out []string
	for k := range o {
		if why, ok := o.hiddenIn(k); ok {
			out = append(out, k+" ("+why+")")
		}
	}
	sort.Strings(out)
	return snapshot.ShareUnknown(out)
}
