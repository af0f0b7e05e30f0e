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
		ID: "DS-01", Title: "Dual-stack cluster, but this Windows node is single-stack", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputKubeNodes, snapshot.InputHNSEndpoints},
		Checks: "When this node's Kubernetes Node has pod CIDRs of both families (the cluster is dual-stack), its network is not Overlay (single-stack by " +
			"design) and kube-proxy's --cluster-cidr, when known, has an IPv6 range: HNS here supports IPv6DualStack " +
			"(hns/v2/features.json first, else the HNS version through hcsshim's table: 11.10 and later) (fail); the pod endpoints in the node's " +
			"IPv4 pod CIDR also have an IPv6 address (warn); and with the Services and EndpointSlices in the bundle, every IPv6 ClusterIP of a " +
			"Service with ready IPv6 endpoints has a load balancer (warn). Single-stack nodes are not judged.",
		Why: "kube-proxy builds its IPv6 load balancers only on an HNS with IPv6DualStack and with both families in --cluster-cidr and the " +
			"IPv6DualStack feature gate; the CNI gives pods an IPv6 address only when its IPAM has an IPv6 range. Anything short of that leaves " +
			"IPv6 Services and IPv6 pod traffic silently unserved on this node while IPv4 works.",
		Fix: "Run Windows Server 2019 with the updates that bring HNS 11.10 or later (Windows Server 2022 and later have it); give the CNI " +
			"configuration an IPv6 range (sdnoverlay/sdnbridge ipam ranges, Calico IPv6 pool), start kube-proxy with both CIDRs in --cluster-cidr " +
			"and --feature-gates=IPv6DualStack=true where the version still needs it.",
		Sources: []string{"microsoft/hcsshim hcn/hcnglobals.go IPv6DualStackVersion (HNS 11.10)",
			"kubernetes pkg/proxy/winkernel/proxier.go NewDualStackProxier (one proxier per family; isIPv6Mode load balancer flag)",
			"kubernetes.io Networking on Windows (IPv4/IPv6 dual-stack)"},
		Check: checkDualStack,
		Upstream: []string{
			"microsoft/hcsshim hcn/hcnglobals.go IPv6DualStackVersion (11.10 and later), read from hns/v2/features.json first",
			"kubernetes pkg/proxy/winkernel/proxier.go NewDualStackProxier: an IPv6 proxier only with dual-stack on, whose load balancers carry the IPv6 flag",
			"kubernetes pkg/controller/nodeipam: a dual-stack cluster gives each Node one pod CIDR per family (spec.podCIDRs)",
		},
		Guards: []string{
			"only when this node's own Node has pod CIDRs of both families: single-stack nodes are never judged",
			"never on Overlay networks (winkernel's dualStackCompatible is false for them; flannel on Windows is IPv4-only), nor when kube-proxy's --cluster-cidr has no IPv6 range",
			"pod endpoints are the local ones inside the Node's IPv4 pod CIDR, not the source VIP, the gateway or the host's own addresses",
			"IPv6 load balancers only with Services and EndpointSlices in the bundle, and only for Services with ready IPv6 endpoints",
			"the HNS feature only when features.json or the HNS version is in the bundle",
		},
	})
}

func checkDualStack(s *snapshot.Snapshot) ([]Issue, error) {
	self := s.SelfKubeNode()
	if self == nil {
		return nil, nil
	}
	var v4, v6 netip.Prefix
	for _, p := range self.PodCIDRs {
		if p.Addr().Is4() && !v4.IsValid() {
			v4 = p
		} else if p.Addr().Is6() && !v6.IsValid() {
			v6 = p
		}
	}
	if !v4.IsValid() || !v6.IsValid() {
		return nil, nil // single-stack
	}
	// Overlay networks are single-stack by design (winkernel's
	// dualStackCompatible is false for them; flannel on Windows is
	// IPv4-only), and kube-proxy given one family only is told so.
	if cni := s.CNINetwork(); cni != nil && cni.Type == snapshot.TypeOverlay {
		return nil, nil
	}
	if kp := s.KubeProxy; kp != nil && kp.ClusterCIDR != "" && !strings.Contains(kp.ClusterCIDR, ":") {
		return nil, nil
	}
	cidrs := v4.String() + ", " + v6.String()
	var issues []Issue
	if f := s.Feature(snapshot.FeatureIPv6DualStack); f.Known && !f.Supported {
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("Node %s has pod CIDRs %s, but HNS here has no IPv6DualStack (says %s): kube-proxy and the CNI run IPv4 only", self.Name, cidrs, f.Source),
			Evidence: []finding.Evidence{{File: f.File, Field: "IPv6DualStack supported", Value: "false (" + f.Source + ")", Expected: "true: HNS 11.10 or later"},
				{File: snapshot.FileKubeNodes, Object: "Node " + self.Name, Field: "spec.podCIDRs", Value: cidrs}},
		})
	}
	var pods, only4 int
	var example []string
	own := ownAddresses(s, s.CNINetwork())
	sourceVIP, _ := netip.ParseAddr(s.Facts.SourceVIP.Value)
	for _, e := range s.Endpoints {
		// Pods only: not the source VIP, the host's or the gateway's.
		if e.IsRemote || !e.IP.IsValid() || !v4.Contains(e.IP) || e.IP == sourceVIP || own.has(e.IP) || e.IP == v4.Addr().Next() {
			continue
		}
		pods++
		if !e.IPv6.IsValid() {
			only4++
			if len(example) < 5 {
				example = append(example, e.IP.String())
			}
		}
	}
	if only4 > 0 {
		issues = append(issues, Issue{
			Severity: finding.Warn,
			Summary: fmt.Sprintf("%d of the %d pod endpoint(s) in %s have no IPv6 address (%s) although Node %s has IPv6 pod CIDR %s: the CNI's IPAM hands out IPv4 only",
				only4, pods, v4, strings.Join(example, ", "), self.Name, v6),
			Evidence: []finding.Evidence{{File: snapshot.FileV2Endpoints, Field: "IpConfigurations", Value: fmt.Sprintf("%d of %d IPv4 only", only4, pods), Expected: "an address from " + v6.String() + " too"}},
		})
	}
	issues = append(issues, missingIPv6LoadBalancers(s)...)
	return issues, nil
}

// missingIPv6LoadBalancers: IPv6 ClusterIPs of Services with ready IPv6
// endpoints that no load balancer serves.
func missingIPv6LoadBalancers(s *snapshot.Snapshot) []Issue {
	if !s.Has(snapshot.InputKubeServices) || !s.Has(snapshot.InputEndpointSlices) || !s.Has(snapshot.InputHNSLoadBalancers) {
		return nil
	}
	vips := map[netip.Addr]bool{}
	for _, lb := range s.LoadBalancers {
		for _, v := range lb.FrontendVIPs {
			if a, err := netip.ParseAddr(strings.TrimSpace(v)); err == nil {
				vips[a] = true
			}
		}
	}
	var missing []string
	for _, svc := range s.Services {
		if strings.EqualFold(svc.InternalTrafficPolicy, "Local") {
			continue
		}
		ready, hinted := snapshot.ReadyAddresses(s.SlicesOf(svc.Namespace, svc.Name))
		if hinted {
			continue
		}
		has6 := false
		for a := range ready {
			has6 = has6 || a.Is6()
		}
		if !has6 {
			continue
		}
		for _, ip := range svc.ClusterIPs {
			if a, err := netip.ParseAddr(ip); err == nil && a.Is6() && !vips[a] {
				missing = append(missing, svc.Namespace+"/"+svc.Name+" "+a.String())
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return []Issue{{
		Severity: finding.Warn,
		Summary:  fmt.Sprintf("%d IPv6 ClusterIP(s) of Services with ready IPv6 endpoints have no load balancer on this node (%s): kube-proxy runs IPv4 only", len(missing), strings.Join(firstN(missing, 5), "; ")),
		Evidence: []finding.Evidence{{File: snapshot.FileV2LoadBalancers, Field: "FrontendVIPs", Value: "no IPv6 VIP of " + strings.Join(firstN(missing, 3), "; "), Expected: "a load balancer per IPv6 ClusterIP"}},
	}}
}
