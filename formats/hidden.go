package formats

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// noteHidden says, in the report's read: lines, which objects the source
// did not show whole (PowerShell's cut lists, ConvertTo-Json's
// System.Object[] past its -Depth): the rules judged only what was shown,
// and a reader must not take a silent rule for a checked one.
func noteHidden(s *snapshot.Snapshot) {
	type seen struct {
		count  int
		names  []string
		fields map[string]bool
	}
	kinds := map[string]*seen{}
	var order []string
	add := func(kind, name string, unknown []string) {
		if len(unknown) == 0 {
			return
		}
		k := kinds[kind]
		if k == nil {
			k = &seen{fields: map[string]bool{}}
			kinds[kind] = k
			order = append(order, kind)
		}
		cut := false
		for _, u := range unknown {
			// Fields the paste did not show at all are judged unknown by
			// the rules (they say so when skipped); a value shown in part
			// looks whole and must be named.
			if !strings.Contains(u, hiddenNotShown) {
				k.fields[u], cut = true, true
			}
		}
		if !cut {
			return
		}
		k.count++
		if name != "" && len(k.names) < 3 {
			k.names = append(k.names, name)
		}
	}
	for _, n := range s.Networks {
		add("network", n.Name, n.Unknown)
	}
	for _, e := range s.Endpoints {
		add("endpoint", e.Name, e.Unknown)
	}
	for _, lb := range s.LoadBalancers {
		add("load balancer", lb.ID, lb.Unknown)
	}
	for _, ns := range s.Namespaces {
		add("namespace", ns.ID, ns.Unknown)
	}
	var parts []string
	for _, kind := range order {
		k := kinds[kind]
		if k.count == 0 {
			continue
		}
		var fields []string
		for f := range k.fields {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		who := fmt.Sprintf("%d %s(s)", k.count, kind)
		if len(k.names) > 0 && k.count <= 3 {
			who = kind + " " + strings.Join(k.names, ", ")
		}
		parts = append(parts, who+": "+strings.Join(firstN(fields, 3), "; "))
	}
	if len(parts) == 0 {
		return
	}
	s.Notes = append(s.Notes, "not shown whole by the source, so the rules judged only what was shown: "+strings.Join(parts, " · ")+
		". Get-HnsNetwork, Get-HnsEndpoint and Get-HnsPolicyList piped to ConvertTo-Json -Depth 10 show all of it")
}
