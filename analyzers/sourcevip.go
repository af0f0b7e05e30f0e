package analyzers

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "SVC-02", Title: "Load balancer source VIP does not fit its backends", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints, snapshot.InputHNSLoadBalancers},
		Checks: "On an overlay node, a load balancer with a backend outside the pod address space (a node IP: the API server, hostNetwork pods, external endpoints) has the node's address " +
			"(ManagementIP or InternalIP) as SourceVIP, and one whose backends are all pods has the pod source VIP, not the node's address. Load balancers without a SourceVIP, " +
			"with backends that are not in the bundle, or on nodes whose pod address space is unknown are not judged.",
		Why: "kube-proxy must SNAT to the node's address to reach a node-IP backend (the kubernetes Service, hostNetwork backends) and to the source VIP to reach pods through the overlay. " +
			"When it classifies a backend wrongly, pod→Service traffic fails only for those Services, typically when two Services share a node-IP backend.",
		Fix: "Upgrade kube-proxy (kubernetes/kubernetes#91886, #87792), then restart it so that it reprograms the load balancers.",
		Sources: []string{"https://github.com/kubernetes/kubernetes/issues/91912", "https://github.com/kubernetes/kubernetes/pull/91886",
			"https://github.com/kubernetes/kubernetes/pull/87792", "https://github.com/kubernetes/kubernetes/issues/79359"},
		Check: checkSourceVIPs,
	})
}

func checkSourceVIPs(s *snapshot.Snapshot) ([]Issue, error) {
	n := s.CNINetwork()
	if n == nil || n.Type != snapshot.TypeOverlay {
		return nil, nil
	}
	nodeAddrs := map[netip.Addr]bool{}
	for a := range nodeAddresses(s) {
		nodeAddrs[a] = true
	}
	self := map[netip.Addr]bool{}
	for _, a := range []netip.Addr{n.ManagementIP, parseFactAddr(s.Facts.NodeIP.Value)} {
		if a.IsValid() {
			self[a] = true
			nodeAddrs[a] = true
		}
	}
	if len(self) == 0 {
		return nil, nil
	}
	var pods prefixSet
	for _, net := range s.Networks {
		for _, sub := range net.Subnets {
			pods.add(sub.Prefix)
		}
		for _, r := range net.RemoteSubnetRoutes {
			pods.add(r.DestinationPrefix)
			nodeAddrs[r.ProviderAddress] = true
		}
	}
	if p, err := netip.ParsePrefix(s.Facts.ClusterCIDR.Value); err == nil {
		pods.add(p)
	}
	if pods.empty() {
		return nil, Skip("the pod address space is unknown (no network subnets, no cluster CIDR)")
	}
	isPod := func(a netip.Addr) bool { return !nodeAddrs[a] && pods.contains(a) }
	byID := endpointsByID(s)
	var issues []Issue
	for _, lb := range s.LoadBalancers {
		src, err := netip.ParseAddr(lb.SourceVIP)
		if err != nil || !src.Is4() || len(lb.EndpointIDs) == 0 {
			continue
		}
		var nodeBackends, podBackends []string
		resolved := true
		for _, id := range lb.EndpointIDs {
			e := byID[id]
			if e == nil || !e.IP.IsValid() {
				resolved = false
				break
			}
			if isPod(e.IP) {
				podBackends = append(podBackends, e.IP.String())
			} else {
				nodeBackends = append(nodeBackends, e.IP.String())
			}
		}
		if !resolved {
			continue
		}
		vips := strings.Join(lb.FrontendVIPs, ",")
		if vips == "" {
			vips = "(no VIP)"
		}
		switch {
		case len(nodeBackends) > 0 && !self[src]:
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("load balancer %s for %s has node-address backends (%s) but SourceVIP %s, a pod address: pods cannot reach this Service through it",
					lb.ID, vips, strings.Join(nodeBackends, ", "), src),
				Evidence: []finding.Evidence{{File: lb.Ref.File, Object: "load balancer " + lb.ID, Field: "SourceVIP", Value: src.String(), Expected: "the node's address " + joinAddrs(sortedAddrs(self))}},
				Subjects: []string{"vip:" + vips},
			})
		case len(nodeBackends) == 0 && self[src]:
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("load balancer %s for %s has only pod backends (%s) but SourceVIP %s, the node's own address: replies from pods on other nodes do not come back through the overlay",
					lb.ID, vips, strings.Join(podBackends, ", "), src),
				Evidence: []finding.Evidence{{File: lb.Ref.File, Object: "load balancer " + lb.ID, Field: "SourceVIP", Value: src.String(), Expected: "the pod source VIP (kube-proxy --source-vip)"}},
				Subjects: []string{"vip:" + vips},
			})
		}
	}
	return issues, nil
}

func parseFactAddr(v string) netip.Addr {
	a, _ := netip.ParseAddr(v)
	return a
}

func sortedAddrs(set map[netip.Addr]bool) []netip.Addr {
	out := make([]netip.Addr, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return out
}

// prefixSet answers "is this address in any of these prefixes" with one map
// lookup per distinct prefix length, not a scan of every prefix: a node of a
// 1,000-node cluster has a thousand pod subnets and a quarter of a million
// load balancer backends.
type prefixSet struct {
	lengths []int
	set     map[netip.Prefix]bool
}

func (p *prefixSet) add(pr netip.Prefix) {
	if !pr.IsValid() {
		return
	}
	if p.set == nil {
		p.set = map[netip.Prefix]bool{}
	}
	pr = pr.Masked()
	if p.set[pr] {
		return
	}
	p.set[pr] = true
	if !slices.Contains(p.lengths, pr.Bits()) {
		p.lengths = append(p.lengths, pr.Bits())
	}
}

func (p *prefixSet) empty() bool { return len(p.set) == 0 }

func (p *prefixSet) contains(a netip.Addr) bool {
	for _, bits := range p.lengths {
		if q, err := a.Prefix(bits); err == nil && p.set[q] {
			return true
		}
	}
	return false
}
