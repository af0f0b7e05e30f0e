package analyzers

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "SVC-12", Title: "Pod VFP port with kube-proxy's DSR rules missing or duplicated", Severity: finding.Warn,
		Needs: []snapshot.Input{snapshot.InputVFP, snapshot.InputHNSEndpoints, snapshot.InputHNSLoadBalancers},
		Checks: "For every local endpoint whose VFP port was dumped with an LB_DSR layer whose LB_DSR_IPv4_OUT (or IPv6) group holds rules: each DSR " +
			"load balancer of HNS with a ClusterIP as its frontend VIP (a Service's ClusterIP when the bundle has the Services; otherwise any VIP whose " +
			"port mapping is not marked external) has its rule there, for each port mapping (a rule named ..._<VIP>_<port>_<target port>_<protocol>, " +
			"or with those conditions), and no two rules of the group have the same conditions. The cluster DNS Service's port 53 is SVC-11's. A warning: " +
			"HNS and VFP are read moments apart, and kube-proxy recreates load balancers as endpoints change, so collect again before acting on one.",
		Why: "With DSR, a pod reaches a ClusterIP Service through rules HNS puts on the pod's own VFP port for each load balancer. A port that " +
			"missed one (HNS busy or restarted while kube-proxy created the load balancer) cannot reach that Service while other pods can; a " +
			"duplicate left behind by a deleted load balancer can send the Service's traffic to backends that no longer exist.",
		Fix: "Restart-Service -Force hns, then Restart-Service kube-proxy (kubeproxy on AKS) so it programs its load balancers again; delete a " +
			"single affected pod when only its port is wrong.",
		Sources: []string{"microsoft/SDN Kubernetes/windows/debug/networkhealth.ps1 DSRLoadBalancerPolicyVfpRules (LB_DSR_*_<ManagementIP>_<VIP>_<port>_<target port>_<protocol> on every local port)",
			"microsoft/SDN networkmonitor CheckDuplicate_LB_DSR_VfpRules (rules keyed by destination IPs, ports and protocols)"},
		Check: checkLBDSRRules,
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkhealth.ps1 DSRLoadBalancerPolicyVfpRules: every DSR load balancer's rule LB_DSR_*_<ManagementIP>_<VIP>_<external port>_<internal port>_<protocol> in LB_DSR / LB_DSR_IPv4_OUT of every local endpoint's port",
			"microsoft/SDN networkmonitor CheckDuplicate_LB_DSR_VfpRules: rules of LB_DSR_IPv4_OUT / LB_DSR_IPv6_OUT keyed by destination IPs, ports and protocols; more than one per key is the defect",
			"kubernetes pkg/proxy/winkernel/hns.go getLoadBalancer (Flags 1 = DSR with --enable-dsr; the port mappings' external and internal ports)",
		},
		Guards: []string{
			"only ports dumped with an LB_DSR group that holds rules: where kube-proxy's load balancers do not reach the port's VFP, nothing is expected",
			"only DSR load balancers of ClusterIPs (a Service's ClusterIP when the bundle has Services, else a VIP whose port mapping is not marked VipExternalIP) that HNS shows as applied (V1 State 2, or no state); NodePort, external IP and ingress load balancers are not judged",
			"a warning: HNS and VFP are read moments apart and kube-proxy recreates load balancers as endpoints change (networkhealth.ps1 looks again after 10 s before it reports)",
			"the cluster DNS Service's port 53 is SVC-11's",
			"a rule matches by its name's suffix (anything after a further underscore allowed) or by equal destination address, port and protocol conditions",
			"duplicates only among rules whose conditions show a destination address and port, and that have every condition alike",
			guardHidden,
			guardLinux,
		},
	})
}

// dsrTarget is one port mapping of a DSR load balancer, as VFP names it.
type dsrTarget struct {
	vip                 netip.Addr
	port, target, proto int64
}

func (t dsrTarget) String() string {
	return fmt.Sprintf("%s:%d/%s", t.vip, t.port, protoName(t.proto))
}

// byName and byConditions are the keys a rule for the target has.
func (t dsrTarget) byName() string {
	return fmt.Sprintf("%s_%d_%d_%d", t.vip, t.port, t.target, t.proto)
}

func (t dsrTarget) byConditions() string {
	return fmt.Sprintf("%s|%d|%d", t.vip, t.port, t.proto)
}

// dsrRuleKeys indexes a group's rules once, so that each load balancer is
// looked up, not compared with every rule (thousands of each on a busy
// node): a rule whose ID or name holds "_<VIP>_<port>_<target port>_<protocol>",
// at its end or before another "_" (newer builds add more), or whose
// conditions name that destination.
func dsrRuleKeys(g *snapshot.VFPGroup) map[string]bool {
	keys := map[string]bool{}
	for _, r := range g.Rules {
		for _, name := range []string{r.ID, r.FriendlyName} {
			parts := strings.Split(name, "_")
			for i := 1; i+3 < len(parts); i++ {
				keys[strings.Join(parts[i:i+4], "_")] = true
			}
		}
		c := r.Conditions
		keys[c.Get("Destination IP")+"|"+c.Get("Destination ports")+"|"+c.Get("Protocols")] = true
	}
	return keys
}

// pmVipExternalIP marks a port mapping of an external IP or a load
// balancer's ingress (hcn LoadBalancerPortMappingFlagsVipExternalIP, set
// by kube-proxy's isVipExternalIP).
const pmVipExternalIP = 16

// dsrTargets are the port mappings VFP should hold on every pod port: DSR
// load balancers of ClusterIPs that HNS shows as applied, except the
// cluster DNS Service's port 53 (SVC-11's).
func dsrTargets(s *snapshot.Snapshot) []dsrTarget {
	dnsIP, _ := netip.ParseAddr(s.Facts.DNSServiceIP.Value)
	var clusterIPs map[netip.Addr]bool
	if len(s.Services) > 0 {
		clusterIPs = map[netip.Addr]bool{}
		for _, svc := range s.Services {
			for _, ip := range svc.ClusterIPs {
				if a, err := netip.ParseAddr(ip); err == nil {
					clusterIPs[a] = true
				}
			}
		}
	}
	var out []dsrTarget
	for _, lb := range s.LoadBalancers {
		if lb.Flags&lbFlagDSR == 0 || !lb.Knows("Flags") || lb.State != 0 && lb.State != 2 {
			continue
		}
		for _, v := range lb.FrontendVIPs {
			vip, err := netip.ParseAddr(v)
			if err != nil || clusterIPs != nil && !clusterIPs[vip] {
				continue
			}
			for _, pm := range lb.PortMappings {
				if pm.ExternalPort == 0 || pm.InternalPort == 0 || pm.Protocol == 0 || vip == dnsIP && pm.ExternalPort == 53 || pm.Flags&pmVipExternalIP != 0 {
					continue
				}
				out = append(out, dsrTarget{vip: vip, port: pm.ExternalPort, target: pm.InternalPort, proto: pm.Protocol})
			}
		}
	}
	return out
}

// lbDSRGroups are a port's LB_DSR groups that hold rules, by family.
func lbDSRGroups(p *snapshot.VFPPort) map[bool]*snapshot.VFPGroup {
	out := map[bool]*snapshot.VFPGroup{}
	for _, l := range p.Layers {
		if !strings.EqualFold(l.Name, "LB_DSR") {
			continue
		}
		for _, g := range l.Groups {
			switch {
			case len(g.Rules) == 0:
			case strings.EqualFold(g.Name, "LB_DSR_IPv4_OUT"):
				out[true] = g
			case strings.EqualFold(g.Name, "LB_DSR_IPv6_OUT"):
				out[false] = g
			}
		}
	}
	return out
}

func checkLBDSRRules(s *snapshot.Snapshot) ([]Issue, error) {
	targets := dsrTargets(s)
	byID := endpointsByID(s)
	var issues []Issue
	for _, p := range s.VFPPorts {
		e := byID.Get(p.EndpointID)
		if e == nil || e.IsRemote {
			continue
		}
		groups := lbDSRGroups(p)
		if len(groups) == 0 {
			continue
		}
		label := fmt.Sprintf("VFP port %s of endpoint %s (%s)", p.Name, e.ID, addrOrNone(e.IP))
		keys := map[bool]map[string]bool{}
		for v4, g := range groups {
			keys[v4] = dsrRuleKeys(g)
		}
		var missing []string
		for _, t := range targets {
			k := keys[t.vip.Is4()]
			if k != nil && !k[t.byName()] && !k[t.byConditions()] {
				missing = append(missing, t.String())
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("%s lacks the DSR rules of %s: this pod cannot reach %s while other pods can",
					label, plural(len(missing), "load balancer port"), listSome(missing, 4)),
				Evidence: []finding.Evidence{{File: vfpPortFile(p), Object: "VFP port " + p.Name, Field: "layer LB_DSR",
					Value: fmt.Sprintf("no rule for %s", missing[0]), Expected: "a rule ..._<VIP>_<port>_<target port>_<protocol> for every DSR load balancer (networkhealth.ps1)"}},
				Subjects: []string{"endpoint:" + e.ID},
			})
		}
		for _, g := range groups {
			if dups := duplicateRules(g); len(dups) > 0 {
				issues = append(issues, Issue{
					Summary: fmt.Sprintf("%s has duplicate DSR rules in %s (the same destination twice: a stale load balancer's rule is left): %s",
						label, g.Name, listSome(dups, 3)),
					Evidence: []finding.Evidence{{File: vfpPortFile(p), Object: "VFP port " + p.Name, Field: "layer LB_DSR group " + g.Name,
						Value: dups[0], Expected: "one rule per destination (networkhealth CheckDuplicate_LB_DSR_VfpRules)"}},
					Subjects: []string{"endpoint:" + e.ID},
				})
			}
		}
	}
	return issues, nil
}

// duplicateRules lists, per set of conditions (a destination address and
// port at least) that two or more rules of the group have alike, the
// rules' names.
func duplicateRules(g *snapshot.VFPGroup) []string {
	byKey := map[string][]string{}
	var keys []string
	for _, r := range g.Rules {
		c := r.Conditions
		if c.Get("Destination IP") == "" || c.Get("Destination ports") == "" {
			continue
		}
		proto := c.Get("Protocols")
		if proto == "" {
			proto = "any"
		}
		key := fmt.Sprintf("%s ports %s protocol %s", c.Get("Destination IP"), c.Get("Destination ports"), proto)
		var more []string
		for _, kv := range c {
			if k := kv.Key; k != "Destination IP" && k != "Destination ports" && k != "Protocols" {
				more = append(more, k+" "+kv.Value)
			}
		}
		if len(more) > 0 {
			sort.Strings(more)
			key += ", " + strings.Join(more, ", ")
		}
		name := r.ID
		if len(name) < 5 {
			name = r.FriendlyName
		}
		if byKey[key] == nil {
			keys = append(keys, key)
		}
		byKey[key] = append(byKey[key], name)
	}
	var out []string
	for _, k := range keys {
		if len(byKey[k]) > 1 {
			out = append(out, k+": "+strings.Join(byKey[k], ", "))
		}
	}
	return out
}
