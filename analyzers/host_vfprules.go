package analyzers

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "HOST-03", Title: "HNS policy present but VFP rules missing", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints, snapshot.InputVFP},
		Checks: "For every local endpoint of an overlay network whose VFP port was dumped with its rules: the port's VNET_ENCAP_LAYER has an encap rule for each RemoteSubnetRoute " +
			"(destination range covering the route's prefix, encap destination DIP = the route's ProviderAddress), and an endpoint with an OutBoundNAT policy has an " +
			"outbound NAT rule in SLB_NAT_LAYER. Ports dumped without rules, and ports no endpoint owns, are not judged.",
		Why: "HNS shows the policy, but traffic follows VFP. When HNS failed to program a port (a race with a large image pull, an HNS restart), Get-HnsNetwork looks right " +
			"and the pod still cannot reach other nodes' pods, or anything outside the cluster.",
		Fix: "Delete the affected pods so that their endpoints are recreated; if many ports diverge, Restart-Service -Force hns, then restart the CNI agent and kube-proxy.",
		Sources: []string{"https://github.com/projectcalico/calico/issues/8569", "https://github.com/projectcalico/calico/issues/12862",
			"https://github.com/flannel-io/flannel/issues/1394", "microsoft/SDN networkhealth.ps1, CompareHnsAndVfpEndpoints.psm1"},
		Check: checkVFPDivergence,
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 (VFP layers and rules per endpoint port, vfpctrl)",
			"microsoft/SDN Kubernetes/windows/debug/monitoring/strategies/CompareHnsAndVfpEndpoints.psm1",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (the RemoteSubnetRoutes HNS turns into encap rules)",
		},
		Guards: []string{
			"only local endpoints of Overlay pod networks",
			"VFP ports dumped without rules, and ports no endpoint owns, are not judged; skipped when no port is",
			"an encap rule whose destination (DIP) the dump does not show is not compared",
			"endpoints of another network are skipped",
			guardLinux,
		},
	})
}

// vfpEncap is one encap rule of a port: where it sends which addresses.
type vfpEncap struct {
	name   string
	ranges [][2]netip.Addr
	dip    netip.Addr
}

func portEncapRules(p *snapshot.VFPPort) (rules []vfpEncap, hasLayer bool) {
	for _, l := range p.Layers {
		if !strings.Contains(strings.ToUpper(l.Name), "ENCAP") {
			continue
		}
		hasLayer = true
		for _, g := range l.Groups {
			for _, r := range g.Rules {
				t := strings.ToLower(r.Type)
				if t != "encap" && t != "routeencap" && !strings.HasPrefix(strings.ToUpper(r.FriendlyName), "ENCAP") {
					continue
				}
				e := vfpEncap{name: r.FriendlyName, ranges: parseAddrRanges(r.Conditions.Get("Destination IP"))}
				for _, d := range r.EncapDestinations {
					if i := strings.Index(d, "DIP="); i >= 0 {
						v := d[i+4:]
						if j := strings.IndexAny(v, ", }"); j >= 0 {
							v = v[:j]
						}
						e.dip, _ = netip.ParseAddr(v)
					}
				}
				rules = append(rules, e)
			}
		}
	}
	return rules, hasLayer
}

// parseAddrRanges reads vfpctrl's address conditions: "a-b", "a", "a/n",
// comma-separated.
func parseAddrRanges(s string) [][2]netip.Addr {
	var out [][2]netip.Addr
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if lo, hi, ok := strings.Cut(part, "-"); ok {
			a, err1 := netip.ParseAddr(strings.TrimSpace(lo))
			b, err2 := netip.ParseAddr(strings.TrimSpace(hi))
			if err1 == nil && err2 == nil {
				out = append(out, [2]netip.Addr{a, b})
			}
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, [2]netip.Addr{p.Masked().Addr(), lastAddr(p.Masked())})
		} else if a, err := netip.ParseAddr(part); err == nil {
			out = append(out, [2]netip.Addr{a, a})
		}
	}
	return out
}

func (e vfpEncap) covers(p netip.Prefix) bool {
	first, last := p.Masked().Addr(), lastAddr(p.Masked())
	for _, r := range e.ranges {
		if r[0].Compare(first) <= 0 && r[1].Compare(last) >= 0 {
			return true
		}
	}
	return false
}

func hasOutboundNATRule(p *snapshot.VFPPort) bool {
	for _, l := range p.Layers {
		if !strings.Contains(strings.ToUpper(l.Name), "NAT") {
			continue
		}
		for _, g := range l.Groups {
			for _, r := range g.Rules {
				if strings.Contains(strings.ToUpper(r.FriendlyName), "OUTBOUNDNAT") || strings.EqualFold(r.Type, "dynnat") {
					return true
				}
			}
		}
	}
	return false
}

func checkVFPDivergence(s *snapshot.Snapshot) ([]Issue, error) {
	byID := endpointsByID(s)
	var issues []Issue
	judged := 0
	for _, n := range overlayNetworks(s) {
		missing := map[int][]string{} // RSR index → ports
		stale := map[int][]string{}
		var noNAT []string
		var file string
		for _, p := range s.VFPPorts {
			e := byID.Get(p.EndpointID)
			if e == nil || e.IsRemote || len(p.Layers) == 0 || (e.NetworkID != "" && !strings.EqualFold(e.NetworkID, n.ID)) {
				continue
			}
			judged++
			file = vfpPortFile(p)
			label := fmt.Sprintf("%s (%s)", p.Name, addrOrNone(e.IP))
			rules, _ := portEncapRules(p)
			index := newEncapIndex(rules)
			for i, r := range n.RemoteSubnetRoutes {
				if !r.DestinationPrefix.IsValid() {
					continue
				}
				var match *vfpEncap
				if j := index.first(r.DestinationPrefix); j >= 0 {
					match = &rules[j]
				}
				switch {
				case match == nil:
					missing[i] = append(missing[i], label)
				case match.dip.IsValid() && r.ProviderAddress.IsValid() && match.dip != r.ProviderAddress:
					stale[i] = append(stale[i], label+" encaps to "+match.dip.String())
				}
			}
			if e.OutboundNAT != nil && !hasOutboundNATRule(p) {
				noNAT = append(noNAT, label)
			}
		}
		for i, r := range n.RemoteSubnetRoutes {
			if ports := missing[i]; len(ports) > 0 {
				issues = append(issues, Issue{
					Summary: fmt.Sprintf("network %s routes %s to %s, but the VFP ports of %s have no encap rule for it: %s",
						n.Name, r.DestinationPrefix, r.ProviderAddress, plural(len(ports), "local endpoint"), listSome(ports, 4)),
					Evidence: []finding.Evidence{{File: file, Object: "VFP port " + strings.Fields(ports[0])[0], Field: "VNET_ENCAP_LAYER rules", Value: "none for " + r.DestinationPrefix.String(),
						Expected: "encap to DIP " + r.ProviderAddress.String(), Note: fmt.Sprintf("%s RemoteSubnetRoute %d", networkFile(n), r.Index)}},
					Subjects: []string{"network:" + n.Name, "subnet:" + r.DestinationPrefix.String()},
				})
			}
			if ports := stale[i]; len(ports) > 0 {
				issues = append(issues, Issue{
					Summary: fmt.Sprintf("network %s routes %s to %s, but VFP still encapsulates it elsewhere on %s: %s",
						n.Name, r.DestinationPrefix, r.ProviderAddress, plural(len(ports), "port"), listSome(ports, 4)),
					Evidence: []finding.Evidence{{File: file, Object: "VFP port " + strings.Fields(ports[0])[0], Field: "encap DIP for " + r.DestinationPrefix.String(),
						Value: ports[0], Expected: r.ProviderAddress.String()}},
					Subjects: []string{"network:" + n.Name, "subnet:" + r.DestinationPrefix.String()},
				})
			}
		}
		if len(noNAT) > 0 {
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("%s of network %s: OutBoundNAT policy in HNS but no outbound NAT rule in VFP: %s", plural(len(noNAT), "local endpoint"), n.Name, listSome(noNAT, 4)),
				Evidence: []finding.Evidence{{File: file, Object: "VFP port " + strings.Fields(noNAT[0])[0], Field: "SLB_NAT_LAYER rules", Value: "no OUTBOUNDNAT / dynnat rule",
					Expected: "the SNAT rule HNS programs for OutBoundNAT"}},
				Subjects: []string{"network:" + n.Name},
			})
		}
	}
	if judged == 0 {
		return nil, Skip("no VFP port of a local overlay endpoint was dumped with its rules")
	}
	return issues, nil
}

func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
