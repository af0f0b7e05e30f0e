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
		ID: "SVC-02", Title: "Load balancer SourceVIP stale or wrong for its backends", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints, snapshot.InputHNSLoadBalancers},
		Checks: "On an overlay node, kube-proxy gives every load balancer of a Service port (ClusterIP, NodePort, externalIP, ingress; DSR or not) one SourceVIP: " +
			"its --source-vip, or the node IP when a remote backend is a node IP (its address is the ProviderAddress of a RemoteSubnetRoute) or outside every " +
			"RemoteSubnetRoute (the API server, external endpoints). A SourceVIP that is neither --source-vip (without kube-proxy's flags: an address of this node's " +
			"pod subnet) nor an address of this node (host adapters, the Kubernetes Node's InternalIP, --bind-address, the network's ManagementIP) is stale (fail); " +
			"when the ManagementIP is the only node address in the bundle, such a SourceVIP outside the cluster CIDR may be kube-proxy's node IP and is a warn that says so. " +
			"A node-address SourceVIP with only pod backends, or the pod source VIP with a node or external backend, is wrong (fail). Load balancers whose backends " +
			"are not all in the bundle are not judged for their backends, nor the DSR (externalTrafficPolicy Local) NodePort/externalIP load balancers and the ClusterIP " +
			"load balancers of internalTrafficPolicy Local Services, which get the local subset of the backends kube-proxy chose the SourceVIP by. When the node's " +
			"address is only a ManagementIP that OVL-01 reports as wrong, what depends on it is not judged (skipped, naming OVL-01). L2Bridge and other network types " +
			"are not judged: kube-proxy sets no SourceVIP there.",
		Why: "kube-proxy must SNAT to the node's address to reach a node-IP backend (the kubernetes Service, hostNetwork backends) and to the source VIP to reach pods through the overlay. " +
			"When it classifies a backend wrongly, pod→Service traffic fails only for those Services, typically when two Services share a node-IP backend. " +
			"A SourceVIP that is no longer the node's or the configured source VIP (after a --source-vip or node address change, or from another agent) has no endpoint to return to: the Service fails from pods on this node.",
		Fix: "Restart kube-proxy so that it reprograms the load balancers (it deletes all at start); if the backend classification is wrong, upgrade kube-proxy (kubernetes/kubernetes#91886, #87792).",
		Sources: []string{"kubernetes pkg/proxy/winkernel/proxier.go (NewProxier: sourceVip only on overlay; syncProxyRules: sourceVip per Service, containsNodeIP/containsPublicIP)",
			"kubernetes pkg/proxy/winkernel/hns.go (getLoadBalancer: SourceVIP, FrontendVIPs, DSR flag)",
			"https://github.com/kubernetes/kubernetes/issues/91912", "https://github.com/kubernetes/kubernetes/pull/91886",
			"https://github.com/kubernetes/kubernetes/pull/87792", "https://github.com/kubernetes/kubernetes/issues/79359"},
		Check: checkSourceVIPs,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (one SourceVIP per Service port: --source-vip, or the node IP for a remote node-IP or public backend)",
			"kubernetes pkg/proxy/winkernel/hns.go getLoadBalancer (SourceVIP, FrontendVIPs, DSR flag)",
			"kubernetes pkg/proxy/winkernel/proxier.go NewProxier (the source VIP exists only on overlay)",
		},
		Guards: []string{
			"only overlay: kube-proxy sets no SourceVIP on L2Bridge or other networks",
			"a SourceVIP is fine when it is --source-vip or any address of this node (adapters, Node InternalIP, --bind-address, ManagementIP); without kube-proxy's flags any pod-subnet address counts as the source VIP",
			"a ManagementIP alone does not prove a SourceVIP stale: when it is the only node address known, a SourceVIP outside the cluster CIDR that is neither --source-vip nor the ManagementIP may be kube-proxy's node IP and is only a warning",
			"when the node's address is known only from a ManagementIP that OVL-01 flags, what depends on it is skipped, naming OVL-01",
			"load balancers whose backends are not all in the bundle are not judged for their backends",
			"DSR non-ClusterIP load balancers (externalTrafficPolicy Local) and ClusterIP ones of internalTrafficPolicy Local Services are not judged: their backends are a local subset",
			"a node-address SourceVIP with pod backends is fine when a sibling load balancer of the Service port has the node backend",
			"empty and IPv6 SourceVIPs are not judged",
			guardLinux,
		},
	})
}

func checkSourceVIPs(s *snapshot.Snapshot) ([]Issue, error) {
	n := s.CNINetwork()
	if n == nil || n.Type != snapshot.TypeOverlay {
		return nil, nil
	}
	v := newSourceVIPs(s, n)
	if len(v.own.from) == 0 && !v.podVIP.IsValid() {
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
	// Each endpoint's verdict once, not once per load balancer that lists
	// it (a large cluster's load balancers list its endpoints many times).
	withIP := make([]*snapshot.Endpoint, 0, len(s.Endpoints))
	for _, e := range s.Endpoints {
		if e.IP.IsValid() {
			withIP = append(withIP, e)
		}
	}
	backends := snapshot.NewEndpointIndex(withIP)
	node := make([]bool, len(withIP))
	for i, e := range withIP {
		node[i] = needsNodeSource(e)
	}
	subset := localSubsetLBs(s)
	// Backends of every load balancer by SourceVIP, protocol and target
	// port: the ClusterIP load balancer of a Service shows the full backend
	// list that its NodePort/externalIP load balancers share the SourceVIP of.
	type group struct {
		src   netip.Addr
		proto int64
		port  int64
	}
	nodeBackendGroups := map[group]bool{}
	var issues []Issue
	stale, maybeStale := map[netip.Addr][]*snapshot.LoadBalancer{}, map[netip.Addr][]*snapshot.LoadBalancer{}
	var staleOrder, maybeOrder, undecided []netip.Addr
	type fit struct {
		lb         *snapshot.LoadBalancer
		src        netip.Addr
		kind       sourceKind
		node, pods addrSample // what the summary names: the first few
	}
	var fits []fit
	for _, lb := range s.LoadBalancers {
		src, err := netip.ParseAddr(strings.TrimSpace(lb.SourceVIP))
		if err != nil || !src.Is4() {
			continue
		}
		kind := v.kind(src)
		switch kind {
		case sourceStale:
			if _, seen := stale[src]; !seen {
				staleOrder = append(staleOrder, src)
			}
			stale[src] = append(stale[src], lb)
			continue
		case sourceMaybeStale:
			if _, seen := maybeStale[src]; !seen {
				maybeOrder = append(maybeOrder, src)
			}
			maybeStale[src] = append(maybeStale[src], lb)
			continue
		case sourceUnknown:
			if !slices.Contains(undecided, src) {
				undecided = append(undecided, src)
			}
			continue
		}
		if lb.EndpointIDs.Len() == 0 {
			continue
		}
		f := fit{lb: lb, src: src, kind: kind}
		resolved := true
		for _, i := range backends.Backends(lb.EndpointIDs) {
			if i < 0 {
				resolved = false
				break
			}
			if node[i] {
				f.node.add(withIP[i].IP)
			} else {
				f.pods.add(withIP[i].IP)
			}
		}
		if !resolved {
			continue
		}
		if f.node.n > 0 {
			for _, pm := range lb.PortMappings {
				nodeBackendGroups[group{src, pm.Protocol, pm.InternalPort}] = true
			}
		}
		// Only a mismatch is judged below: the rest need not wait.
		if f.node.n > 0 && kind == sourcePod || f.node.n == 0 && kind == sourceNode {
			fits = append(fits, f)
		}
	}
	for _, f := range fits {
		lb, src := f.lb, f.src
		vips := lbFrontend(lb)
		switch {
		case f.node.n > 0 && f.kind == sourcePod:
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("load balancer %s for %s has node-address or external backends (%s) but SourceVIP %s, the pod source VIP: pods cannot reach this Service through it",
					lb.ID, vips, f.node, src),
				Evidence: []finding.Evidence{{File: lb.Ref.File, Object: "load balancer " + lb.ID, Field: "SourceVIP", Value: src.String(),
					Expected: "the node's address: " + v.own.describe(4)}},
				Subjects: []string{"vip:" + strings.Join(lb.FrontendVIPs, ",")},
			})
		case f.node.n == 0 && f.kind == sourceNode:
			if subset[lb] {
				continue // backends are a local subset: kube-proxy chose by all of them
			}
			shared := false
			for _, pm := range lb.PortMappings {
				shared = shared || nodeBackendGroups[group{src, pm.Protocol, pm.InternalPort}]
			}
			if shared {
				continue // a sibling load balancer of the Service has the node backend
			}
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("load balancer %s for %s has only pod backends (%s) but SourceVIP %s, the node's own address: replies from pods on other nodes do not come back through the overlay",
					lb.ID, vips, f.pods, src),
				Evidence: []finding.Evidence{{File: lb.Ref.File, Object: "load balancer " + lb.ID, Field: "SourceVIP", Value: src.String(),
					Expected: podVIPExpected(v), Note: "an address of this node (" + v.own.from[src].String() + ")"}},
				Subjects: []string{"vip:" + strings.Join(lb.FrontendVIPs, ",")},
			})
		}
	}
	issues = append(issues, v.staleIssues(stale, staleOrder, false)...)
	issues = append(issues, v.staleIssues(maybeStale, maybeOrder, true)...)
	if len(issues) == 0 && len(undecided) > 0 {
		return nil, Skip("%s; SourceVIP %s of the load balancers may be kube-proxy's real node IP, so they are not judged until OVL-01 is fixed (or with host/adapters.json or the Kubernetes Node in the bundle)",
			v.own.disputed, joinAddrs(undecided))
	}
	return issues, nil
}

func podVIPExpected(v sourceVIPs) string {
	if v.podVIP.IsValid() {
		return "the pod source VIP " + v.podVIP.String() + " (" + v.podSrc + ")"
	}
	return "the pod source VIP (kube-proxy --source-vip)"
}

// localSubsetLBs are the load balancers kube-proxy gives only the local
// backends of a Service, while choosing their SourceVIP by all of them:
// DSR load balancers other than ClusterIP ones (externalTrafficPolicy
// Local) and, with the Services in the bundle, the ClusterIP load balancers
// of Services with internalTrafficPolicy Local.
func localSubsetLBs(s *snapshot.Snapshot) map[*snapshot.LoadBalancer]bool {
	out := map[*snapshot.LoadBalancer]bool{}
	clusterIPs := map[string]bool{}
	itpLocal := map[string]bool{}
	for _, svc := range s.Services {
		for _, ip := range svc.ClusterIPs {
			clusterIPs[ip] = true
			if strings.EqualFold(svc.InternalTrafficPolicy, "Local") {
				itpLocal[ip] = true
			}
		}
	}
	service := s.Facts.ServiceCIDR.Prefix()
	for _, lb := range s.LoadBalancers {
		isClusterIP := false
		for _, vip := range lb.FrontendVIPs {
			isClusterIP = isClusterIP || clusterIPs[vip] || service.IsValid() && containsAddr(service, vip)
			if itpLocal[vip] {
				out[lb] = true
			}
		}
		if lb.Flags&lbFlagDSR != 0 && !isClusterIP {
			out[lb] = true
		}
	}
	return out
}

func parseFactAddr(v string) netip.Addr {
	a, _ := netip.ParseAddr(v)
	return a
}

// addrSample is a list of addresses as a summary names it: its first
// sampleAddrs and how many there are. A large cluster's load balancers list
// 127,000 backends; keeping each list whole for its summary held 3 MB.
type addrSample struct {
	first [sampleAddrs]netip.Addr
	n     int
}

const sampleAddrs = 5

func (s *addrSample) add(a netip.Addr) {
	if s.n < sampleAddrs {
		s.first[s.n] = a
	}
	s.n++
}

// String lists the first addresses and how many more there are, as
// firstN does for strings.
func (s addrSample) String() string {
	out := make([]string, 0, sampleAddrs+1)
	for _, a := range s.first[:min(s.n, sampleAddrs)] {
		out = append(out, a.String())
	}
	if s.n > sampleAddrs {
		out = append(out, fmt.Sprintf("and %d more", s.n-sampleAddrs))
	}
	return strings.Join(out, ", ")
}
