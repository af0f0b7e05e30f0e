package monitor

import (
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// roundState is what one round found, as the metrics publish it.
type roundState struct {
	open      map[string]finding.Finding // by findingKey: fail, warn, info and error findings
	ran       int                        // rules that ran
	skipped   int                        // rules whose inputs were missing
	notApply  int                        // rules that do not apply to this node
	errored   int                        // rules that crashed
	objects   map[string]int             // HNS objects by kind
	vfpTaken  bool                       // the round had VFP state
	noVFPRule int                        // local endpoints whose dumped port holds no rule
	unjudged  string                     // why the node cannot be called healthy (no HNS state)
}

// HNS object kinds as the metrics label them.
var objectKinds = []string{"networks", "endpoints", "remote_endpoints", "loadbalancers", "namespaces"}

func newRoundState(s *snapshot.Snapshot, res finding.Result) *roundState {
	st := &roundState{open: map[string]finding.Finding{}, skipped: len(res.Skipped), unjudged: s.Unjudged}
	for _, c := range res.Coverage {
		st.ran += len(c.Ran)
		for _, n := range c.NotApplicable {
			st.notApply += n
		}
	}
	for _, f := range res.Findings {
		if f.Severity == finding.Error {
			st.errored++
		}
		if f.Severity == finding.Skip {
			continue
		}
		k := findingKey(f)
		if _, dup := st.open[k]; !dup {
			st.open[k] = f
		}
	}
	remote := 0
	for _, e := range s.Endpoints {
		if e.IsRemote {
			remote++
		}
	}
	st.objects = map[string]int{
		"networks": len(s.Networks), "endpoints": len(s.Endpoints) - remote, "remote_endpoints": remote,
		"loadbalancers": len(s.LoadBalancers), "namespaces": len(s.Namespaces),
	}
	st.vfpTaken = s.Has(snapshot.InputVFP)
	if st.vfpTaken {
		st.noVFPRule = endpointsWithoutVFPRules(s)
	}
	return st
}

// endpointsWithoutVFPRules counts the local endpoints whose vSwitch port
// vfpctrl dumped with its layers and no rule in any of them: HNS holds the
// endpoint, VFP does nothing for it. NAT networks run without VFP rules by
// design and are left out; so are ports listed but not dumped, and
// endpoints no listed port belongs to (nothing was read about them).
func endpointsWithoutVFPRules(s *snapshot.Snapshot) int {
	natNet := map[string]bool{}
	for _, n := range s.Networks {
		if strings.EqualFold(n.Type, snapshot.TypeNAT) {
			natNet[strings.ToLower(n.ID)] = true
		}
	}
	byID := map[string]*snapshot.Endpoint{}
	for _, e := range s.Endpoints {
		if !e.IsRemote {
			byID[e.ID] = e
		}
	}
	n := 0
	for _, p := range s.VFPPorts {
		e := byID[p.EndpointID]
		if e == nil || p.Layers == nil || natNet[strings.ToLower(e.NetworkID)] {
			continue
		}
		if p.RuleCount() == 0 {
			n++
		}
	}
	return n
}
