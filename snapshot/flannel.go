package snapshot

import (
	"encoding/json"
	"strings"
)

// FlannelBackend is the node's flannel backend data: VNI and VTEP MAC.
func (n *KubeNode) FlannelBackend() (vni int64, vtepMAC string, ok bool) {
	raw, found := n.Annotations.Lookup(AnnotationFlannelBackendData)
	if !found {
		return 0, "", false
	}
	if f, ok := scanFlannelBackend(raw); ok {
		if f.vni == nil {
			f.vni = f.vnid
		}
		vni, _ = IntValue(f.vni)
		return vni, NormalizeMAC(TextValue(f.vtepMAC)), true
	}
	return decodeFlannelBackend(raw)
}

// decodeFlannelBackend reads the backend data whatever its form.
func decodeFlannelBackend(raw string) (vni int64, vtepMAC string, ok bool) {
	m, ok := decodeObject(raw)
	if !ok {
		return 0, "", false
	}
	vni, _ = settingInt(m, "VNI", "VNID")
	return vni, NormalizeMAC(settingString(m, "VtepMAC")), true
}

// flannelBackendData holds the values of the backend-data keys the rules
// read, as decodeObject would decode them; nil when absent or null.
type flannelBackendData struct {
	vni, vnid, vtepMAC any
}

// scanFlannelBackend reads the annotation as flannel writes it,
// {"VNI":4096,"VtepMAC":"0e:2a:0a:f4:01:00"}, without a JSON decoder:
// the rules read every node's, and a decoder per node was most of their
// allocation in a large cluster. It reads a flat object of plain ASCII
// strings, integers, booleans and nulls, the keys spelled exactly and
// once, and answers false for anything else (escapes, fractions, nested
// values, a key in another case), which decodeObject then reads.
func scanFlannelBackend(raw string) (f flannelBackendData, ok bool) {
	i := skipJSONSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return f, false
	}
	i = skipJSONSpace(raw, i+1)
	var seen [3]bool
	if i < len(raw) && raw[i] == '}' {
		return f, skipJSONSpace(raw, i+1) == len(raw)
	}
	for {
		key, j, ok := scanPlainString(raw, i)
		if !ok {
			return f, false
		}
		i = skipJSONSpace(raw, j)
		if i >= len(raw) || raw[i] != ':' {
			return f, false
		}
		i = skipJSONSpace(raw, i+1)
		v, j, ok := scanPlainValue(raw, i)
		if !ok {
			return f, false
		}
		slot := -1
		switch key {
		case "VNI":
			slot, f.vni = 0, v
		case "VNID":
			slot, f.vnid = 1, v
		case "VtepMAC":
			slot, f.vtepMAC = 2, v
		default:
			if strings.EqualFold(key, "VNI") || strings.EqualFold(key, "VNID") || strings.EqualFold(key, "VtepMAC") {
				return f, false
			}
		}
		if slot >= 0 {
			if seen[slot] {
				return f, false
			}
			seen[slot] = true
		}
		i = skipJSONSpace(raw, j)
		if i >= len(raw) {
			return f, false
		}
		switch raw[i] {
		case ',':
			i = skipJSONSpace(raw, i+1)
		case '}':
			return f, skipJSONSpace(raw, i+1) == len(raw)
		default:
			return f, false
		}
	}
}

func skipJSONSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// scanPlainString reads a JSON string of printable ASCII without escapes
// at s[i], returning it and the index past its closing quote.
func scanPlainString(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return s[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", i, false
		}
	}
	return "", i, false
}

// scanPlainValue reads a plain string, an integer (-?(0|[1-9][0-9]*)),
// true, false or null at s[i], as a decoder with UseNumber would decode
// it: string, json.Number, bool or nil.
func scanPlainValue(s string, i int) (any, int, bool) {
	if i >= len(s) {
		return nil, i, false
	}
	switch c := s[i]; {
	case c == '"':
		v, j, ok := scanPlainString(s, i)
		return v, j, ok
	case c == '-' || c >= '0' && c <= '9':
		j := i
		if s[j] == '-' {
			j++
		}
		start := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == start || s[start] == '0' && j-start > 1 {
			return nil, i, false
		}
		if j < len(s) && (s[j] == '.' || s[j] == 'e' || s[j] == 'E') {
			return nil, i, false
		}
		return json.Number(s[i:j]), j, true
	case strings.HasPrefix(s[i:], "true"):
		return true, i + 4, true
	case strings.HasPrefix(s[i:], "false"):
		return false, i + 5, true
	case strings.HasPrefix(s[i:], "null"):
		return nil, i + 4, true
	}
	return nil, i, false
}
