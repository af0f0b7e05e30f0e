package formats

// The VFP text reader as it was before it stopped copying lines: the
// oracle the reader is held to (FuzzVFPMatchesReference).

import (
	"strconv"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// refVfpSegment is the output of one vfpctrl command.
type refVfpSegment struct {
	verb  string // from "Command <verb> succeeded!", empty when cut off
	lines []string
}

// refSplitVFPCommands cuts text at "Command <verb> succeeded!" lines.
func refSplitVFPCommands(lines []string) []refVfpSegment {
	var out []refVfpSegment
	var cur []string
	for _, l := range lines {
		if m := vfpSucceeded().FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			out = append(out, refVfpSegment{verb: strings.ToLower(m[1]), lines: cur})
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		out = append(out, refVfpSegment{lines: cur})
	}
	return out
}

// refSplitKV splits "key : value" at the first " : " (values can be IPv6
// addresses), else at the first ": " ("Flow TTL: 240").
func refSplitKV(s string) (string, string, bool) {
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

func refIndentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// refParseVFPRuleTree reads /list-rule or /get-rule-counter output (also
// /list-layer and /list-group, which print the upper levels only).
func refParseVFPRuleTree(lines []string) []*snapshot.VFPLayer {
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
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		if t == "" || t == "ITEM LIST" || strings.Trim(t, "=") == "" {
			continue
		}
		ind := refIndentOf(raw)
		if sub != "" && ind > subIndent {
			refAddSubLine(rule, sub, t)
			continue
		}
		sub = ""
		key, value, ok := refSplitKV(t)
		switch {
		case ok && key == "LAYER":
			layer = &snapshot.VFPLayer{Name: value}
			layers = append(layers, layer)
			group, rule = nil, nil
			continue
		case ok && key == "GROUP":
			if layer == nil {
				layer = &snapshot.VFPLayer{}
				layers = append(layers, layer)
			}
			group = &snapshot.VFPGroup{Name: value}
			layer.Groups = append(layer.Groups, group)
			rule = nil
			continue
		case ok && key == "RULE":
			ensureGroup()
			rule = &snapshot.VFPRule{ID: value}
			group.Rules = append(group.Rules, rule)
			continue
		case strings.HasSuffix(t, ":") && !strings.Contains(t, " : ") && rule != nil:
			sub, subIndent = strings.TrimSuffix(t, ":"), ind
			continue
		}
		// One line may carry several pairs: "Type : Source NAT;  NAT pool : X".
		for _, part := range strings.Split(t, ";") {
			k, v, ok := refSplitKV(strings.TrimSpace(part))
			if !ok {
				continue
			}
			switch {
			case rule != nil:
				refSetRuleField(rule, k, v)
			case group != nil:
				refSetGroupField(group, k, v)
			case layer != nil:
				refSetLayerField(layer, k, v)
			}
		}
	}
	return layers
}

func refAddSubLine(r *snapshot.VFPRule, sub, line string) {
	if r == nil || line == "<none>" {
		return
	}
	switch strings.ToLower(sub) {
	case "conditions":
		if k, v, ok := refSplitKV(line); ok {
			r.Conditions.Set(k, v)
		}
	case "encap destination(s)", "encap destinations", "encap destination":
		r.EncapDestinations = append(r.EncapDestinations, line)
	default:
		r.Data = append(r.Data, line)
	}
}

func refNum(v string) int64 {
	n, _ := strconv.ParseInt(strings.Fields(v + " x")[0], 0, 64)
	return n
}

var refRuleCounterKeys = map[string]bool{"matched packets": true, "dropped packets": true, "pending packets": true,
	"dropped unified flows": true, "matched bytes": true}

func refSetRuleField(r *snapshot.VFPRule, k, v string) {
	switch lk := strings.ToLower(k); {
	case lk == "friendly name":
		r.FriendlyName = v
	case lk == "priority":
		r.Priority = refNum(v)
	case lk == "flags":
		r.Flags = v
	case lk == "type" && r.Type == "":
		r.Type = v
	case refRuleCounterKeys[lk]:
		if r.Counters == nil {
			r.Counters = map[string]int64{}
		}
		r.Counters[k] = refNum(v)
	default:
		if r.Props == nil {
			r.Props = map[string]string{}
		}
		if _, dup := r.Props[k]; dup || lk == "type" {
			k += " (2)"
		}
		r.Props[k] = v
	}
}

func refSetGroupField(g *snapshot.VFPGroup, k, v string) {
	switch strings.ToLower(k) {
	case "friendly name":
		g.FriendlyName = v
	case "priority":
		g.Priority = refNum(v)
	case "direction":
		g.Direction = v
	case "type":
		g.Type = v
	}
}

func refSetLayerField(l *snapshot.VFPLayer, k, v string) {
	switch strings.ToLower(k) {
	case "friendly name":
		l.FriendlyName = v
	case "priority":
		l.Priority = refNum(v)
	case "flags":
		l.Flags = v
	}
}

// refParseVFPPortList reads /list-vmswitch-port: one block per port, starting
// with "Port name".
func refParseVFPPortList(lines []string, source string) []*snapshot.VFPPort {
	var out []*snapshot.VFPPort
	var cur *snapshot.VFPPort
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		k, v, ok := refSplitKV(t)
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
			refSetIf(cur, func(p *snapshot.VFPPort) { p.FriendlyName = v })
		case "switch name":
			refSetIf(cur, func(p *snapshot.VFPPort) { p.SwitchName = snapshot.NormalizeGUID(v) })
		case "switch friendly name":
			refSetIf(cur, func(p *snapshot.VFPPort) { p.SwitchFriendlyName = v })
		case "portid", "port id":
			refSetIf(cur, func(p *snapshot.VFPPort) { p.PortID = v })
		case "mac address":
			refSetIf(cur, func(p *snapshot.VFPPort) { p.MAC = snapshot.NormalizeMAC(v) })
		case "port type":
			refSetIf(cur, func(p *snapshot.VFPPort) { p.PortType = v })
		case "vm name":
			refSetIf(cur, func(p *snapshot.VFPPort) { p.VMName = v })
		}
	}
	return out
}

func refSetIf(p *snapshot.VFPPort, set func(*snapshot.VFPPort)) {
	if p != nil {
		set(p)
	}
}

// refApplyPortState reads /get-port-state ("Blocked : FALSE") into the port.
func refApplyPortState(p *snapshot.VFPPort, lines []string) {
	for _, raw := range lines {
		k, v, ok := refSplitKV(strings.TrimSpace(raw))
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
			p.State[k] = v
		}
	}
}

// refApplyPortCounters reads /get-port-counter ("Direction - OUT", then pairs).
func refApplyPortCounters(p *snapshot.VFPPort, lines []string) {
	dir := ""
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		if d, ok := strings.CutPrefix(t, "Direction - "); ok {
			dir = strings.TrimSpace(d) + " "
			continue
		}
		k, v, ok := refSplitKV(t)
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			if p.Counters == nil {
				p.Counters = map[string]int64{}
			}
			p.Counters[dir+k] = n
		}
	}
}

// refApplySegment routes one command's output to the port.
func refApplySegment(p *snapshot.VFPPort, seg refVfpSegment) {
	text := strings.Join(seg.lines, "\n")
	switch {
	case seg.verb == "list-rule" || seg.verb == "get-rule-counter" || seg.verb == "list-layer" || seg.verb == "list-group" ||
		seg.verb == "" && strings.Contains(text, "LAYER :"):
		if layers := refParseVFPRuleTree(seg.lines); len(layers) > 0 {
			p.Layers = layers
		}
	case seg.verb == "get-port-state" || seg.verb == "" && strings.Contains(text, "Blocked :"):
		refApplyPortState(p, seg.lines)
	case seg.verb == "get-port-counter":
		refApplyPortCounters(p, seg.lines)
	}
}

// refParseVFPDump reads vfpctrl text in the layouts the tools write:
// collectlogs' ports.txt (/list-vmswitch-port, then "Get-port-counter for
// port: <guid>" sections), dumpVfpPolicies' vfpOutput.txt (a port table,
// then "Policy for port :" + GUID + several commands per port), and a
// single port's dump (port given by the caller). Ports are merged by name.
func refParseVFPDump(text, source, portName string, into map[string]*snapshot.VFPPort) []*snapshot.VFPPort {
	var order []*snapshot.VFPPort
	get := func(name string) *snapshot.VFPPort {
		name = snapshot.NormalizeGUID(name)
		if p, ok := into[name]; ok {
			return p
		}
		p := &snapshot.VFPPort{Name: name, Source: source}
		into[name] = p
		order = append(order, p)
		return p
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	// Sections per port: "Policy for port :" (dumpVfpPolicies) or
	// "Get-port-counter for port: <guid>" (collectlogs ports.txt).
	var cur *snapshot.VFPPort
	if portName != "" {
		cur = get(portName)
	}
	var section []string
	flush := func() {
		if len(section) == 0 {
			return
		}
		segs := refSplitVFPCommands(section)
		for _, seg := range segs {
			if seg.verb == "list-vmswitch-port" || seg.verb == "" && cur == nil && refContainsPortName(seg.lines) {
				for _, p := range refParseVFPPortList(seg.lines, source) {
					merged := get(p.Name)
					refMergePort(merged, p)
				}
				continue
			}
			if cur != nil {
				refApplySegment(cur, seg)
			}
		}
		section = nil
	}
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, "Policy for port") {
			flush()
			name := strings.TrimSpace(t[strings.Index(t, ":")+1:])
			for name == "" && i+1 < len(lines) {
				i++
				name = strings.TrimSpace(lines[i])
			}
			if vfpGUID().MatchString(name) {
				cur = get(name)
			}
			continue
		}
		if rest, ok := strings.CutPrefix(t, "Get-port-counter for port:"); ok {
			flush()
			if name := strings.TrimSpace(rest); vfpGUID().MatchString(name) {
				cur = get(name)
			}
			section = append(section, "") // counters follow
			continue
		}
		section = append(section, lines[i])
	}
	flush()
	return order
}

func refContainsPortName(lines []string) bool {
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "Port name") && strings.Contains(l, ":") {
			return true
		}
	}
	return false
}

func refMergePort(into, from *snapshot.VFPPort) {
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
