package analyzers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "POL-01", Title: "NetworkPolicy ACLs in HNS and in VFP differ", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSEndpoints, snapshot.InputVFP},
		Checks: "For every local endpoint whose VFP port was dumped with its rules: an endpoint with VFP ACL policies in HNS (RuleType Switch: Calico, Azure NPM, Antrea, " +
			"the CNI's port ACLs) has rules in the port's ACL layers, and, where this node's HNS names rules after ACL Ids, every ACL that carries an Id has its rule (fail); " +
			"the port holds no policy rule, named after an ACL Id seen in HNS or after Calico's and NPM's rules, that the endpoint's HNS policies no " +
			"longer have (warn).",
		Why: "NetworkPolicy on Windows is the ACL policies on each pod's HNS endpoint, which HNS programs into the pod's VFP port, and traffic follows " +
			"VFP. When HNS failed to program a port (an HNS restart, an endpoint modified while it was busy), Get-HnsEndpoint shows the policy " +
			"and the pod is not protected by it, or keeps a rule HNS has dropped and is blocked by a policy that no longer exists.",
		Fix: "Delete the affected pods so their endpoints and ACLs are programmed anew; if many ports diverge, Restart-Service -Force hns, then " +
			"restart the policy agent (calico-node / Felix, azure-npm) and kube-proxy so they apply their ACLs again.",
		Sources: []string{"https://github.com/microsoft/hcsshim/issues/1059 (an ACL HNS refuses)",
			"https://github.com/microsoft/Windows-Containers/issues/616 (how endpoint ACLs behave on Windows Server 2025)"},
		Check: checkACLDivergence,
		Upstream: []string{
			"Calico felix/dataplane/windows/endpoint_mgr.go (ApplyACLPolicy on each local endpoint of the Calico network; rule Ids allow-host-to-endpoint, <policy>-<rule>-<n>, set where HNS supports AclRuleId; two Host rules and an Id-less default block)",
			"microsoft/hcsshim internal/hns/hnspolicy.go ACLPolicy (V1, with Id) and hcn/hcnpolicy.go AclPolicySetting (V2)",
			"microsoft/windows-container-networking cni/cni.go (allowAclPortMapping: an ACL per mapped port)",
			"Windows HNS/VFP: an endpoint's ACL policies become rules of its port's ACL_ENDPOINT_LAYER named after the ACL's Id (vfpctrl /port P /layer ACL_ENDPOINT_LAYER /list-rule, as Rancher's RKE2 notes and Azure NPM's debugging scripts read them)",
		},
		Guards: []string{
			"only local endpoints whose VFP port was dumped with its rules; a dump of one other layer only (a pasted /layer listing) is not judged",
			"endpoints whose policies the input hid are not judged",
			"ACLs of RuleType Host are the host firewall's (WFP), not VFP's, and are not counted (Felix adds two to every endpoint)",
			"ACL_ENDPOINT_LAYER and ACL_SUBNET_LAYER both count as the port's ACL rules",
			"ACLs without an Id (Felix's default block) are counted, not matched by name: only an ACL layer without any rule is reported for them",
			"rules are matched by Id only when some port of the node shows a rule named after an HNS ACL Id: an HNS that does not name rules by Id (Felix sets Ids only where HNS supports them) is judged by the rule count alone",
			"a VFP rule is taken for a stale policy only when its name is an ACL Id seen in HNS on this node or a Calico/NPM rule name; a stale rule is a warning",
			guardLinux,
		},
	})
}

// aclRuleNamePrefixes are names policy agents give their ACLs, which VFP
// shows as the rules' friendly names: Calico Felix's host rule, profiles and
// policies, and Azure NPM's rules.
var aclRuleNamePrefixes = []string{"allow-host-to-endpoint", "profile-", "policy-", "azure-acl-"}

// endpointACLs are the ACL policies of an endpoint that VFP enforces and
// the Ids of those that carry one. RuleType Host ACLs are the host's
// firewall's (WFP), not VFP's (hcn RuleType: "Host creates WFP rules;
// Switch creates VFP"): Felix adds two to every endpoint.
// ids maps each Id in lower case to it as written; nil when none has one
// (the tens of thousands of remote endpoints of a large cluster).
func endpointACLs(e *snapshot.Endpoint) (n int, ids map[string]string) {
	for _, p := range e.Policies {
		if p.Kind() != "ACL" || strings.EqualFold(p.Str("RuleType"), "Host") {
			continue
		}
		n++
		if id := p.Str("Id"); id != "" {
			if ids == nil {
				ids = map[string]string{}
			}
			ids[strings.ToLower(id)] = id
		}
	}
	return n, ids
}

// portACLRules are the rules of a port's ACL layers (ACL_ENDPOINT_LAYER,
// and ACL_SUBNET_LAYER where HNS puts subnet-scoped ACLs); shown says
// whether the dump shows one (a /layer dump of another layer does not).
func portACLRules(p *snapshot.VFPPort) (rules []*snapshot.VFPRule, shown bool) {
	for _, l := range p.Layers {
		isLayer := strings.HasPrefix(strings.ToUpper(l.Name), "ACL_")
		for _, g := range l.Groups {
			if isLayer || strings.HasPrefix(strings.ToUpper(g.Name), "ACL_ENDPOINT_GROUP") {
				shown = true
				rules = append(rules, g.Rules...)
			}
		}
		shown = shown || isLayer
	}
	return rules, shown
}

func checkACLDivergence(s *snapshot.Snapshot) ([]Issue, error) {
	byID := endpointsByID(s)
	// Ids seen in HNS anywhere on the node name policy rules on any port.
	known := map[string]bool{}
	for _, e := range s.Endpoints {
		_, ids := endpointACLs(e)
		for id := range ids {
			known[id] = true
		}
	}
	// Whether this node's HNS names VFP rules after ACL Ids at all: Felix
	// sets Ids only where HNS supports them (AclRuleId), and an HNS that
	// does not names its rules otherwise.
	namedByID := false
	for _, p := range s.VFPPorts {
		rules, _ := portACLRules(p)
		for _, r := range rules {
			namedByID = namedByID || known[strings.ToLower(r.FriendlyName)]
		}
	}
	isPolicyRule := func(name string) bool {
		name = strings.ToLower(name)
		if known[name] {
			return true
		}
		for _, p := range aclRuleNamePrefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	var issues []Issue
	judged := 0
	for _, p := range s.VFPPorts {
		e := byID.Get(p.EndpointID)
		if e == nil || e.IsRemote || len(p.Layers) == 0 || !e.Knows("Policies") {
			continue
		}
		judged++
		rules, shown := portACLRules(p)
		n, ids := endpointACLs(e)
		// A dump of one layer only (a pasted /layer listing) says nothing
		// of the layers it leaves out.
		if !shown && (n == 0 || len(p.Layers) < 2) {
			continue
		}
		label := fmt.Sprintf("endpoint %s (%s)", e.ID, addrOrNone(e.IP))
		names := map[string]bool{}
		for _, r := range rules {
			names[strings.ToLower(r.FriendlyName)] = true
		}
		ev := finding.Evidence{File: vfpPortFile(p), Object: "VFP port " + p.Name, Field: "layer ACL_ENDPOINT_LAYER"}
		hnsEv := finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "Policies[Type=ACL]", Value: fmt.Sprint(n)}
		switch {
		case n > 0 && len(rules) == 0:
			ev.Value, ev.Expected = "no rules", fmt.Sprintf("rules for the %s HNS holds", plural(n, "ACL"))
			if !shown {
				ev.Value = "layer not programmed"
			}
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("%s has %s in HNS but its VFP port %s has no ACL rule: the pod's NetworkPolicy is not enforced",
					label, plural(n, "ACL"), p.Name),
				Evidence: []finding.Evidence{hnsEv, ev},
				Subjects: []string{"endpoint:" + e.ID},
			})
			continue
		case n > 0 && namedByID:
			var missing []string
			for id, written := range ids {
				if !names[id] {
					missing = append(missing, written)
				}
			}
			if len(missing) > 0 {
				sort.Strings(missing)
				ev.Value, ev.Expected = fmt.Sprintf("%d rules, none named %s", len(rules), missing[0]), "a rule for each ACL Id"
				summary := fmt.Sprintf("%s: HNS ACL policy %s has no rule in VFP port %s, so it is not enforced", label, missing[0], p.Name)
				if len(missing) > 1 {
					summary = fmt.Sprintf("%s: %d HNS ACL policies have no rule in VFP port %s, so they are not enforced: %s", label, len(missing), p.Name, listSome(missing, 4))
				}
				issues = append(issues, Issue{Summary: summary, Evidence: []finding.Evidence{hnsEv, ev}, Subjects: []string{"endpoint:" + e.ID}})
			}
		}
		// The reverse: a policy rule HNS does not hold for this endpoint.
		// Ids are what match ACLs to rules; ACLs without one (Felix's
		// default block) name no rule a policy's name could be taken for.
		if !namedByID {
			continue
		}
		var stale []string
		for _, r := range rules {
			name := strings.ToLower(r.FriendlyName)
			if _, held := ids[name]; name != "" && !held && isPolicyRule(name) {
				stale = append(stale, r.FriendlyName)
			}
		}
		if len(stale) > 0 {
			sort.Strings(stale)
			ev.Value, ev.Expected = "rule "+stale[0], "only the endpoint's HNS ACLs"
			issues = append(issues, Issue{
				Severity: finding.Warn,
				Summary: fmt.Sprintf("VFP port %s of %s keeps %s that its HNS ACL policies no longer have (stale policy, still enforced): %s",
					p.Name, label, plural(len(stale), "policy rule"), listSome(stale, 4)),
				Evidence: []finding.Evidence{ev, hnsEv},
				Subjects: []string{"endpoint:" + e.ID},
			})
		}
	}
	if judged == 0 {
		return nil, Skip("no VFP port of a local endpoint was dumped with its rules")
	}
	return issues, nil
}

// vfpPortFile is the file a port's rules came from: its own dump in a
// bundle, else where the port was read.
func vfpPortFile(p *snapshot.VFPPort) string {
	if strings.HasPrefix(p.Source, "vfp/") {
		return "vfp/port-" + p.Name + ".txt"
	}
	return p.Source
}
