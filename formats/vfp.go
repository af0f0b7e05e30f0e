package formats

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/wincni/diag/snapshot"
)

var (
	vfpSucceeded = lazyRegexp(`^Command ([\w-]+) succeeded!?`)
	vfpGUID      = lazyRegexp(`^\{?` + snapshot.GUIDPattern + `\}?$`)
)

// vfpSegment is the output of one vfpctrl command.
type vfpSegment struct {
	verb  string // from "Command <verb> succeeded!", empty when cut off
	lines []string
}

// splitVFPCommands cuts text at "Command <verb> succeeded!" lines. The
// segments are sub-slices of lines.
func splitVFPCommands(lines []string) []vfpSegment {
	var out []vfpSegment
	start := 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "Command ") {
			continue
		}
		if m := vfpSucceeded().FindStringSubmatch(t); m != nil {
			out = append(out, vfpSegment{verb: strings.ToLower(m[1]), lines: lines[start:i:i]})
			start = i + 1
		}
	}
	if start < len(lines) {
		out = append(out, vfpSegment{lines: lines[start:]})
	}
	return out
}

// splitKV splits "key : value" at the first " : " (values can be IPv6
// addresses), else at the first ": " ("Flow TTL: 240").
func splitKV(s string) (string, string, bool) {
	if i := strings.Index(s, " : "); i >= 0 {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+3:]), true
	}
	if strings.HasSuffix(s, " :") {
		return strings.TrimSpace(s[:len(s)-2]), "", true
	}
	if i := strings.Index(s, ": "); i >= 0 {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+2:]), true
	}
	return "", "", false
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// parseVFPRuleTree reads /list-rule or /get-rule-counter output (also
// /list-layer and /list-group, which print the upper levels only).
func parseVFPRuleTree(lines []string, in *vfpStrings) []*snapshot.VFPLayer {
	var layers []*snapshot.VFPLayer
	var layer *snapshot.VFPLayer
	var group *snapshot.VFPGroup
	var rule *snapshot.VFPRule
	sub, subIndent := "", 0
	ensureGroup := func() {
		if layer == nil {
			layer = &snapshot.VFPLayer{}
			layers = append(layers, layer)
		}
		if group == nil {
			group = &snapshot.VFPGroup{}
			layer.Groups = append(layer.Groups, group)
		}
	}
	endRule := func() {
		if rule != nil {
			rule.Props = in.shareMap(rule.Props)
		}
	}
	defer endRule()
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		if t == "" || t == "ITEM LIST" || strings.Trim(t, "=") == "" {
			continue
		}
		ind := indentOf(raw)
		if sub != "" && ind > subIndent {
			addSubLine(rule, sub, t, in)
			continue
		}
		sub = ""
		key, value, ok := splitKV(t)
		switch {
		case ok && key == "LAYER":
			endRule()
			layer = &snapshot.VFPLayer{Name: in.keep(value)}
			layers = append(layers, layer)
			group, rule = nil, nil
			continue
		case ok && key == "GROUP":
			if layer == nil {
				layer = &snapshot.VFPLayer{}
				layers = append(layers, layer)
			}
			endRule()
			group = &snapshot.VFPGroup{Name: in.keep(value)}
			layer.Groups = append(layer.Groups, group)
			rule = nil
			continue
		case ok && key == "RULE":
			ensureGroup()
			endRule()
			rule = &snapshot.VFPRule{ID: in.keep(value)}
			group.Rules = append(group.Rules, rule)
			continue
		case strings.HasSuffix(t, ":") && !strings.Contains(t, " : ") && rule != nil:
			sub, subIndent = strings.TrimSuffix(t, ":"), ind
			continue
		}
		// One line may carry several pairs: "Type : Source NAT;  NAT pool : X".
		for rest, more := t, true; more; {
			var part string
			part, rest, more = strings.Cut(rest, ";")
			k, v, ok := splitKV(strings.TrimSpace(part))
			if !ok {
				continue
			}
			switch {
			case rule != nil:
				setRuleField(rule, k, v, in)
			case group != nil:
				setGroupField(group, k, v, in)
			case layer != nil:
				setLayerField(layer, k, v, in)
			}
		}
	}
	return layers
}

func addSubLine(r *snapshot.VFPRule, sub, line string, in *vfpStrings) {
	if r == nil || line == "<none>" {
		return
	}
	switch {
	case lowerIs(sub, "conditions"):
		if k, v, ok := splitKV(line); ok {
			r.Conditions.Set(in.keep(k), in.keep(v))
		}
	case lowerIs(sub, "encap destination(s)"), lowerIs(sub, "encap destinations"), lowerIs(sub, "encap destination"):
		r.EncapDestinations = append(r.EncapDestinations, in.keep(line))
	default:
		r.Data = append(r.Data, in.keep(line))
	}
}

func num(v string) int64 {
	n, _ := strconv.ParseInt(strings.Fields(v + " x")[0], 0, 64)
	return n
}

// ruleCounterKeys are the /get-rule-counter fields, in lower case.
var ruleCounterKeys = [...]string{"matched packets", "dropped packets", "pending packets", "dropped unified flows", "matched bytes"}

func isRuleCounter(k string) bool {
	for _, c := range ruleCounterKeys {
		if lowerIs(k, c) {
			return true
		}
	}
	return false
}

func setRuleField(r *snapshot.VFPRule, k, v string, in *vfpStrings) {
	switch isType := lowerIs(k, "type"); {
	case lowerIs(k, "friendly name"):
		r.FriendlyName = in.keep(v)
	case lowerIs(k, "priority"):
		r.Priority = num(v)
	case lowerIs(k, "flags"):
		r.Flags = in.keep(v)
	case isType && r.Type == "":
		r.Type = in.keep(v)
	case isRuleCounter(k):
		if r.Counters == nil {
			r.Counters = map[string]int64{}
		}
		r.Counters[in.keep(k)] = num(v)
	default:
		if r.Props == nil {
			r.Props = map[string]string{}
		}
		if _, dup := r.Props[k]; dup || isType {
			k += " (2)"
		}
		r.Props[in.keep(k)] = in.keep(v)
	}
}

func setGroupField(g *snapshot.VFPGroup, k, v string, in *vfpStrings) {
	switch {
	case lowerIs(k, "friendly name"):
		g.FriendlyName = in.keep(v)
	case lowerIs(k, "priority"):
		g.Priority = num(v)
	case lowerIs(k, "direction"):
		g.Direction = in.keep(v)
	case lowerIs(k, "type"):
		g.Type = in.keep(v)
	}
}

func setLayerField(l *snapshot.VFPLayer, k, v string, in *vfpStrings) {
	switch {
	case lowerIs(k, "friendly name"):
		l.FriendlyName = in.keep(v)
	case lowerIs(k, "priority"):
		l.Priority = num(v)
	case lowerIs(k, "flags"):
		l.Flags = in.keep(v)
	}
}

// parseVFPPortList reads /list-vmswitch-port: one block per port, starting
// with "Port name".
func parseVFPPortList(lines []string, source string, in *vfpStrings) []*snapshot.VFPPort {
	var out []*snapshot.VFPPort
	var cur *snapshot.VFPPort
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		k, v, ok := splitKV(t)
		v = in.keep(v)
		if !ok {
			if cur != nil && strings.HasPrefix(t, "Port is ") {
				enabled := strings.HasPrefix(t, "Port is Enabled")
				cur.Enabled = &enabled
			}
			continue
		}
		switch strings.ToLower(k) {
		case "port name":
			cur = &snapshot.VFPPort{Name: snapshot.NormalizeGUID(v), Source: source}
			out = append(out, cur)
		case "port friendly name":
			setIf(cur, func(p *snapshot.VFPPort) { p.FriendlyName = v })
		case "switch name":
			setIf(cur, func(p *snapshot.VFPPort) { p.SwitchName = snapshot.NormalizeGUID(v) })
		case "switch friendly name":
			setIf(cur, func(p *snapshot.VFPPort) { p.SwitchFriendlyName = v })
		case "portid", "port id":
			setIf(cur, func(p *snapshot.VFPPort) { p.PortID = v })
		case "mac address":
			setIf(cur, func(p *snapshot.VFPPort) { p.MAC = snapshot.NormalizeMAC(v) })
		case "port type":
			setIf(cur, func(p *snapshot.VFPPort) { p.PortType = v })
		case "vm name":
			setIf(cur, func(p *snapshot.VFPPort) { p.VMName = v })
		}
	}
	return out
}

func setIf(p *snapshot.VFPPort, set func(*snapshot.VFPPort)) {
	if p != nil {
		set(p)
	}
}

// applyPortState reads /get-port-state ("Blocked : FALSE") into the port.
func applyPortState(p *snapshot.VFPPort, lines []string, in *vfpStrings) {
	for _, raw := range lines {
		k, v, ok := splitKV(strings.TrimSpace(raw))
		if !ok {
			continue
		}
		b := strings.EqualFold(v, "TRUE")
		switch strings.ToLower(k) {
		case "blocked":
			p.Blocked = &b
		case "enabled":
			p.Enabled = &b
		default:
			if p.State == nil {
				p.State = map[string]string{}
			}
			p.State[in.keep(k)] = in.keep(v)
		}
	}
}

// applyPortCounters reads /get-port-counter ("Direction - OUT", then pairs).
func applyPortCounters(p *snapshot.VFPPort, lines []string, in *vfpStrings) {
	dir := ""
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		if d, ok := strings.CutPrefix(t, "Direction - "); ok {
			dir = strings.TrimSpace(d) + " "
			continue
		}
		k, v, ok := splitKV(t)
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			if p.Counters == nil {
				p.Counters = map[string]int64{}
			}
			p.Counters[in.keep(dir+k)] = n
		}
	}
}

// applySegment routes one command's output to the port.
func applySegment(p *snapshot.VFPPort, seg vfpSegment, in *vfpStrings) {
	switch {
	case seg.verb == "list-rule" || seg.verb == "get-rule-counter" || seg.verb == "list-layer" || seg.verb == "list-group" ||
		seg.verb == "" && linesContain(seg.lines, "LAYER :"):
		if layers := parseVFPRuleTree(seg.lines, in); len(layers) > 0 {
			p.Layers = layers
		}
	case seg.verb == "get-port-state" || seg.verb == "" && linesContain(seg.lines, "Blocked :"):
		applyPortState(p, seg.lines, in)
	case seg.verb == "get-port-counter":
		applyPortCounters(p, seg.lines, in)
	}
}

// linesContain tells whether the lines joined by newlines contain sub
// (which holds no newline).
func linesContain(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// ParseVFPDump reads vfpctrl text in the layouts the tools write:
// collectlogs' ports.txt (/list-vmswitch-port, then "Get-port-counter for
// port: <guid>" sections), dumpVfpPolicies' vfpOutput.txt (a port table,
// then "Policy for port :" + GUID + several commands per port), and a
// single port's dump (port given by the caller). Ports are merged by name.
func ParseVFPDump(text, source, portName string, into map[string]*snapshot.VFPPort) []*snapshot.VFPPort {
	var order []*snapshot.VFPPort
	in := newVFPStrings()
	get := func(name string) *snapshot.VFPPort {
		name = in.keep(snapshot.NormalizeGUID(name))
		if p, ok := into[name]; ok {
			return p
		}
		p := &snapshot.VFPPort{Name: name, Source: source}
		into[name] = p
		order = append(order, p)
		return p
	}
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r", "")
	}
	lines := strings.Split(text, "\n")
	// Sections per port: "Policy for port :" (dumpVfpPolicies) or
	// "Get-port-counter for port: <guid>" (collectlogs ports.txt).
	var cur *snapshot.VFPPort
	if portName != "" {
		cur = get(portName)
	}
	// A section is lines[start:end], read when the next one starts.
	start := 0
	flush := func(end int) {
		if start >= end {
			return
		}
		for _, seg := range splitVFPCommands(lines[start:end]) {
			if seg.verb == "list-vmswitch-port" || seg.verb == "" && cur == nil && containsPortName(seg.lines) {
				for _, p := range parseVFPPortList(seg.lines, source, in) {
					merged := get(p.Name)
					mergePort(merged, p)
				}
				continue
			}
			if cur != nil {
				applySegment(cur, seg, in)
			}
		}
	}
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, "Policy for port") {
			flush(i)
			name := strings.TrimSpace(t[strings.Index(t, ":")+1:])
			for name == "" && i+1 < len(lines) {
				i++
				name = strings.TrimSpace(lines[i])
			}
			if vfpGUID().MatchString(name) {
				cur = get(name)
			}
			start = i + 1
			continue
		}
		if rest, ok := strings.CutPrefix(t, "Get-port-counter for port:"); ok {
			flush(i)
			if name := strings.TrimSpace(rest); vfpGUID().MatchString(name) {
				cur = get(name)
			}
			start = i + 1 // the counters follow
			continue
		}
	}
	flush(len(lines))
	return order
}

func containsPortName(lines []string) bool {
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "Port name") && strings.Contains(l, ":") {
			return true
		}
	}
	return false
}

func mergePort(into, from *snapshot.VFPPort) {
	if into.FriendlyName == "" {
		into.FriendlyName = from.FriendlyName
	}
	if into.SwitchName == "" {
		into.SwitchName, into.SwitchFriendlyName = from.SwitchName, from.SwitchFriendlyName
	}
	if into.PortID == "" {
		into.PortID = from.PortID
	}
	if into.MAC == "" {
		into.MAC = from.MAC
	}
	if into.PortType == "" {
		into.PortType = from.PortType
	}
	if into.VMName == "" {
		into.VMName = from.VMName
	}
	if into.Enabled == nil {
		into.Enabled = from.Enabled
	}
}

// vfpStrings keeps what the model holds of a dump apart from the dump's
// text, so that the text (megabytes for a port of a large cluster) is not
// held alive by the substrings; the names, keys and values repeated in
// every rule are one string each, and rules whose properties are equal
// share one map (read-only, as the whole model).
type vfpStrings struct {
	seen map[string]string
	maps map[string]map[string]string
	key  []byte
}

func newVFPStrings() *vfpStrings {
	return &vfpStrings{seen: map[string]string{}, maps: map[string]map[string]string{}}
}

// vfpInternMax bounds the table on any dump; past it strings are copied.
const vfpInternMax = 1 << 16

func (in *vfpStrings) keep(s string) string {
	if k, ok := in.seen[s]; ok {
		return k
	}
	k := strings.Clone(s)
	if len(in.seen) < vfpInternMax {
		in.seen[k] = k
	}
	return k
}

// shareMap returns the map equal to m seen first, or m.
func (in *vfpStrings) shareMap(m map[string]string) map[string]string {
	if len(m) == 0 || len(in.maps) >= vfpInternMax {
		return m
	}
	keys := make([]string, 0, 8)
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	in.key = in.key[:0]
	for _, k := range keys {
		v := m[k]
		in.key = binary.AppendUvarint(in.key, uint64(len(k)))
		in.key = append(in.key, k...)
		in.key = binary.AppendUvarint(in.key, uint64(len(v)))
		in.key = append(in.key, v...)
	}
	if shared, ok := in.maps[string(in.key)]; ok {
		return shared
	}
	in.maps[string(in.key)] = m
	return m
}

// lowerIs tells whether strings.ToLower(s) == lower, without the copy for
// ASCII s.
func lowerIs(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.ToLower(s) == lower
		}
	}
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
