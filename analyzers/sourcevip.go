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
		Checks: "On an overlay node, each load balancer's SourceVIP follows the rule kube-proxy applies: the node's address (ManagementIP or InternalIP) when a remote backend " +
			"is a node IP (its address is the ProviderAddress of the RemoteSubnetRoute that covers it) or outside every RemoteSubnetRoute (the API server, external endpoints); " +
			"otherwise (local pods, remote pods, this node's own address) the configured pod source VIP. Load balancers without a SourceVIP or with backends that are not in " +
			"the bundle are not judged.",
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
	self := map[netip.Addr]bool{}
	for _, a := range []netip.Addr{n.ManagementIP, parseFactAddr(s.Facts.NodeIP.Value)} {
		if a.IsValid() {
			self[a] = true
		}
	}
	if len(self) == 0 {
		return nil, nil
	}
	var routes prefixMap
	for _, r := range n.RemoteSubnetRoutes {
		routes.add(r.DestinationPrefix, r.ProviderAddress)
	}
	// needsNodeSource is kube-proxy's test (winkernel proxier): a remote
	// backend that is a remote node's own address, or that no remote
	// subnet route covers ("public"), makes it SNAT to the node's address.
	needsNodeSource := func(e *snapshot.Endpoint) bool {
		if !e.IsRemote {
			return false
		}
		pa, covered := routes.lookup(e.IP)
		return !covered || pa == e.IP
	}
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
			if needsNodeSource(e) {
				nodeBackends = append(nodeBackends, e.IP.String())
			} else {
				podBackends = append(podBackends, e.IP.String())
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
				Summary: fmt.Sprintf("load balancer %s for %s has node-address or external backends (%s) but SourceVIP %s, the pod source VIP: pods cannot reach this Service through it",
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

// prefixMap answers "which of these prefixes holds this address, and what
// is its value" with one map lookup per distinct prefix length, not a scan
// of every prefix: a node of a 1,000-node cluster has a thousand remote
// subnet routes and a quarter of a million load balancer backends.
type prefixMap struct {
	lengths []int
	m       map[netip.Prefix]netip.Addr
}

func (p *prefixMap) add(pr netip.Prefix, v netip.Addr) {
	if !pr.IsValid() {
		return
	}
	if p.m == nil {
		p.m = map[netip.Prefix]netip.Addr{}
	}
	pr = pr.Masked()
	if _, seen := p.m[pr]; seen {
		return
	}
	p.m[pr] = v
	if !slices.Contains(p.lengths, pr.Bits()) {
		p.lengths = append(p.lengths, pr.Bits())
	}
}

// lookup finds the most specific prefix holding a.
func (p *prefixMap) lookup(a netip.Addr) (netip.Addr, bool) {
	best, found := -1, netip.Addr{}
	for _, bits := range p.lengths {
		if q, err := a.Prefix(bits); err == nil && bits > best {
			if v, ok := p.m[q]; ok {
				best, found = bits, v
			}
		}
	}
	return found, best >= 0
}
