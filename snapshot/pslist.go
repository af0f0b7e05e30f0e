package snapshot

import (
	"regexp"
	"sort"
	"strings"
)

// PowerShell Format-List text (Get-HnsNetwork, Get-HnsEndpoint,
// Get-HnsPolicyList, Get-HnsNamespace printed to the console and pasted into
// a ticket) is turned into the same generic object tree as JSON, so that one
// set of builders serves both:
//
//	Name       : Calico                 a record: "Key : Value" lines,
//	Policies   : {@{Type=HostRoute},    blank lines between records
//	             @{DestinationPrefix=…} continuation lines (indented, or not)
//	Resources  : @{Allocators=System.Object[]; State=1}
//
// `{a, b}` is a list, `@{k=v; k=v}` a hashtable, and `System.Object[]` a
// value PowerShell hid: it becomes a hidden marker, never an empty value.
// A list ending in "..." was cut by $FormatEnumerationLimit and gets a
// hidden marker as its last element.

// hidden is a value the text does not show.
type hidden struct{ why string }

const (
	hiddenPlaceholder = "PowerShell printed System.Object[] instead of the value"
	hiddenTruncated   = "PowerShell cut the list short ($FormatEnumerationLimit)"
)

var (
	psPrompt = regexp.MustCompile(`^PS [^>]*>`)
	psHidden = regexp.MustCompile(`^System\.[A-Za-z0-9_.]+\[\]$`)
)

// maxPSDepth bounds nesting (HNS objects nest four deep in Format-List), so
// hostile input costs at most this many passes over a value.
const maxPSDepth = 8

// parseFormatList returns one object per Format-List record. Text that is not
// a record (prose around a paste, prompts) is skipped.
func parseFormatList(text string) []obj {
	var out []obj
	var cur obj
	var order []string
	var lastKey string
	var values map[string]*strings.Builder
	flush := func() {
		if cur != nil {
			for _, k := range order {
				cur[k] = psValue(values[k].String(), 0)
			}
			out = append(out, cur)
		}
		cur, order, lastKey, values = nil, nil, "", nil
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r \t")
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case psPrompt.MatchString(line):
			flush()
		default:
			if key, value, ok := psKeyValue(line); ok {
				if cur == nil {
					cur, values = obj{}, map[string]*strings.Builder{}
				}
				if _, dup := values[key]; !dup {
					order = append(order, key)
					values[key] = &strings.Builder{}
				}
				lastKey = key
				values[lastKey].Reset()
				values[lastKey].WriteString(strings.TrimSpace(value))
				continue
			}
			if cur == nil {
				continue // prose, not a record
			}
			// A continuation: PowerShell wrapped the value at a space and
			// dropped it.
			b := values[lastKey]
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.TrimSpace(line))
		}
	}
	flush()
	return out
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
	case psHidden.MatchString(s):
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
	return out
}
