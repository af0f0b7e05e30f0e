package diff

import (
	"sort"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// vfp compares the VFP ports by name (the port GUID), then the ports left
// over by friendly name; in each pair, the layers by name and the rules of
// each layer by group and rule name.
func (c *comparer) vfp() {
	om, ok := keyed(c.old.VFPPorts, func(p *snapshot.VFPPort) string { return strings.ToUpper(p.Name) })
	nm, nk := keyed(c.new.VFPPorts, func(p *snapshot.VFPPort) string { return strings.ToUpper(p.Name) })
	var gone, came []*snapshot.VFPPort
	pairs(om, nm, ok, nk, func(_ string, o, n *snapshot.VFPPort, inOld, inNew bool) {
		switch {
		case !inNew:
			gone = append(gone, o)
		case !inOld:
			came = append(came, n)
		default:
			c.vfpPort(o, n)
		}
	})
	// A port recreated with its endpoint keeps its friendly name at best.
	byFriendly := map[string]*snapshot.VFPPort{}
	for _, o := range gone {
		if o.FriendlyName != "" {
			byFriendly[o.FriendlyName] = o
		}
	}
	paired := map[*snapshot.VFPPort]bool{}
	for _, n := range came {
		if o := byFriendly[n.FriendlyName]; n.FriendlyName != "" && o != nil && !paired[o] {
			paired[o], paired[n] = true, true
			c.vfpPort(o, n)
		}
	}
	for _, o := range gone {
		if !paired[o] {
			c.add(Change{Kind: KindVFPPort, Name: portName(o), ID: o.Name, Change: Removed, Detail: portDetail(o)})
		}
	}
	for _, n := range came {
		if !paired[n] {
			c.add(Change{Kind: KindVFPPort, Name: portName(n), ID: n.Name, Change: Added, Detail: portDetail(n)})
		}
	}
}

func portName(p *snapshot.VFPPort) string {
	if p.FriendlyName != "" {
		return p.FriendlyName
	}
	return p.Name
}

func portDetail(p *snapshot.VFPPort) string {
	return strings.Join([]string{itoa(int64(len(p.Layers))), "layer(s),", itoa(int64(p.RuleCount())), "rule(s)"}, " ")
}

func (c *comparer) vfpPort(o, n *snapshot.VFPPort) {
	base := Change{Kind: KindVFPPort, Name: portName(n), ID: n.Name}
	if !strings.EqualFold(o.Name, n.Name) {
		c.field(base, "Name", o.Name, n.Name)
	}
	if o.Blocked != nil && n.Blocked != nil {
		c.field(base, "Blocked", boolString(*o.Blocked), boolString(*n.Blocked))
	}
	key := func(l *snapshot.VFPLayer) string { return l.Name }
	om, ok := keyed(o.Layers, key)
	nm, nk := keyed(n.Layers, key)
	parent := "port " + portName(n)
	pairs(om, nm, ok, nk, func(k string, ol, nl *snapshot.VFPLayer, inOld, inNew bool) {
		switch {
		case !inNew:
			c.add(Change{Kind: KindVFPLayer, Name: k, ID: n.Name, Parent: parent, Change: Removed, Detail: itoa(int64(layerRules(ol))) + " rule(s)"})
		case !inOld:
			c.add(Change{Kind: KindVFPLayer, Name: k, ID: n.Name, Parent: parent, Change: Added, Detail: itoa(int64(layerRules(nl))) + " rule(s)"})
		default:
			c.vfpRules(n.Name, parent+" layer "+k, ol, nl)
		}
	})
}

func layerRules(l *snapshot.VFPLayer) int {
	n := 0
	for _, g := range l.Groups {
		n += len(g.Rules)
	}
	return n
}

// vfpRule is a rule with the group it sits in.
type vfpRule struct {
	group string
	rule  *snapshot.VFPRule
}

func ruleName(r *snapshot.VFPRule) string {
	switch {
	case r.FriendlyName != "":
		return r.FriendlyName
	case r.ID != "":
		return r.ID
	}
	return ruleSignature(r) // neither: the rule is what it does
}

// ruleSignature is what a rule does, without its counters.
func ruleSignature(r *snapshot.VFPRule) string {
	parts := []string{r.Type}
	conds := make([]string, 0, len(r.Conditions))
	for _, c := range r.Conditions {
		conds = append(conds, c.Key+"="+c.Value)
	}
	sort.Strings(conds)
	parts = append(parts, conds...)
	parts = append(parts, r.EncapDestinations...)
	parts = append(parts, r.Data...)
	return strings.TrimSpace(strings.Join(parts, " "))
}

func (c *comparer) vfpRules(port, parent string, ol, nl *snapshot.VFPLayer) {
	flat := func(l *snapshot.VFPLayer) []vfpRule {
		var out []vfpRule
		for _, g := range l.Groups {
			for _, r := range g.Rules {
				out = append(out, vfpRule{g.Name, r})
			}
		}
		return out
	}
	key := func(r vfpRule) string { return r.group + "/" + ruleName(r.rule) }
	om, ok := keyed(flat(ol), key)
	nm, nk := keyed(flat(nl), key)
	pairs(om, nm, ok, nk, func(k string, or, nr vfpRule, inOld, inNew bool) {
		base := Change{Kind: KindVFPRule, Name: k, ID: port, Parent: parent}
		switch {
		case !inNew:
			base.Change, base.Detail = Removed, or.rule.Type
			c.add(base)
		case !inOld:
			base.Change, base.Detail = Added, nr.rule.Type
			c.add(base)
		default:
			c.field(base, "Rule", ruleSignature(or.rule), ruleSignature(nr.rule))
		}
	})
}
