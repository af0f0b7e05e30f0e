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
		ID: "EP-01", Title: "Duplicate endpoint addresses or pod subnet nearly full", Severity: finding.Fail,
		Needs:  []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks: "No two local endpoints share an address (a remote endpoint sharing one with a local endpoint is SVC-06's business); the local endpoints of each pod subnet use less than 90% of its addresses (network, gateway and broadcast excluded).",
		Why:    "A CNI DEL that did not run leaves the endpoint and its IPAM reservation behind: new pods fail with \"The object already exists (0x1392)\", or get an address that another pod still answers for; a subnet full of leaked endpoints leaves new pods Pending.",
		Fix:    "Delete the orphaned endpoints (Get-HnsEndpoint | ? IPAddress -eq <ip> | Remove-HnsEndpoint) and their host-local IPAM files, then upgrade the CNI if it leaks.",
		Sources: []string{"https://github.com/Azure/azure-container-networking/issues/218", "https://github.com/containerd/containerd/issues/6135",
			"Calico for Windows limitations (may leak HNS endpoints)"},
		Check: checkEndpointAddresses,
		Upstream: []string{
			"containernetworking/plugins pkg/hns/endpoint_windows.go (one HNS endpoint per sandbox, named <sandbox>_<network>)",
			"Windows HNS (local endpoints keep their address until the CNI DEL removes them)",
		},
		Guards: []string{
			"a remote endpoint sharing an address with a local one is SVC-06's business, not a duplicate here",
			"pod subnets with fewer than 3 or more than 12 host bits are not judged for fill",
			"network, gateway and broadcast addresses are not counted as usable; a subnet under 90% full is fine",
			"a nearly full subnet is a warning, not a failure",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "OVL-08", Title: "Remote pod endpoint points at this node's own address", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints},
		Checks:  "No remote endpoint for a pod address (in the cluster CIDR, outside the service CIDR, the node addresses and this node's pod subnet) has this node's ManagementIP as its ProviderAddress.",
		Why:     "When no RemoteSubnetRoute covers a backend, kube-proxy logs \"Could not find provider address, assuming it is a public IP\" and programs the remote endpoint with its own node IP: service traffic to that backend never leaves for the right node. Service VIP endpoints legitimately carry the node's own address and are not reported.",
		Fix:     "Fix the RemoteSubnetRoutes first (OVL-02), then restart kube-proxy so it recreates its remote endpoints.",
		Sources: []string{"kubernetes pkg/proxy/winkernel/proxier.go (overlay remote endpoint creation)", "https://github.com/kubernetes/enhancements/pull/5112"},
		Check:   checkSelfProviderAddress,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (remote endpoint ProviderAddress from findRemoteSubnetProviderAddress, else the node IP)",
			"kubernetes pkg/proxy/winkernel/hns.go createEndpoint",
		},
		Guards: []string{
			"skipped when the cluster CIDR is unknown",
			"Service VIP endpoints (service CIDR) legitimately carry the node's own address and are excluded",
			"node addresses, addresses outside the cluster CIDR and this node's own pod subnet are excluded",
			"endpoints of another network are excluded; only Overlay networks with a ManagementIP",
			guardLinux,
		},
	})
}

func checkEndpointAddresses(s *snapshot.Snapshot) ([]Issue, error) {
	byIP := map[netip.Addr][]*snapshot.Endpoint{}
	for _, e := range s.Endpoints {
		if !e.IsRemote && e.IP.IsValid() {
			byIP[e.IP] = append(byIP[e.IP], e)
		}
	}
	var dups []netip.Addr
	for ip, eps := range byIP {
		if len(eps) > 1 {
			dups = append(dups, ip)
		}
	}
	sort.Slice(dups, func(i, j int) bool { return dups[i].Less(dups[j]) })
	var issues []Issue
	for _, ip := range dups {
		eps := byIP[ip]
		var names []string
		var ev []finding.Evidence
		for _, e := range eps {
			names = append(names, fmt.Sprintf("%s (%s, network %s)", e.ID, e.Name, e.NetworkName))
			ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "IPAddress", Value: ip.String(), Expected: "unique among local endpoints"})
		}
		issues = append(issues, Issue{Summary: fmt.Sprintf("%d local endpoints hold %s: %s — at most one of them is a live pod", len(eps), ip, strings.Join(names, "; ")),
			Evidence: ev, Subjects: []string{"address:" + ip.String()}})
	}
	for _, n := range cniNetworks(s) {
		for _, sub := range n.Subnets {
			p := sub.Prefix
			host := p.Addr().BitLen() - p.Bits()
			if !p.IsValid() || host < 3 || host > 12 {
				continue // too small to judge, or too large to fill
			}
			usable := 1<<host - 3
			used := 0
			for ip := range byIP {
				if p.Contains(ip) {
					used++
				}
			}
			if used*10 < usable*9 {
				continue
			}
			issues = append(issues, Issue{Severity: finding.Warn,
				Summary: fmt.Sprintf("pod subnet %s of network %s has %d local endpoints for %d usable addresses: new pods will soon get no address", p, n.Name, used, usable),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "Subnets", Value: p.String()},
					{File: s.Inputs[snapshot.InputHNSEndpoints], Field: "local endpoints in " + p.String(), Value: fmt.Sprint(used), Expected: fmt.Sprintf("below 90%% of %d", usable)}},
				Remediation: "Compare the local endpoints with the pods scheduled on this node (kubectl get pods -A -o wide --field-selector spec.nodeName=<node>) and delete the endpoints no pod owns; raise the node's pod CIDR size if they are all in use.",
				Subjects:    []string{"network:" + n.Name, "prefix:" + p.String()}})
		}
	}
	return issues, nil
}

func checkSelfProviderAddress(s *snapshot.Snapshot) ([]Issue, error) {
	cluster := s.Facts.ClusterCIDR.Prefix()
	if !cluster.IsValid() {
		return nil, Skip("the cluster CIDR is not known (kube-proxy --cluster-cidr): service VIP endpoints could not be told from pod endpoints")
	}
	service := s.Facts.ServiceCIDR.Prefix()
	nodeIPs := nodeAddresses(s)
	var issues []Issue
	for _, n := range overlayNetworks(s) {
		if !n.ManagementIP.IsValid() {
			continue
		}
		var bad []string
		var ev []finding.Evidence
		for _, e := range s.Endpoints {
			if !e.IsRemote || e.ProviderAddress != n.ManagementIP || !e.IP.IsValid() ||
				!cluster.Contains(e.IP) || (service.IsValid() && service.Contains(e.IP)) || nodeIPs[e.IP] != "" || n.ContainsAddr(e.IP) {
				continue
			}
			if e.NetworkID != "" && n.ID != "" && !strings.EqualFold(e.NetworkID, n.ID) {
				continue
			}
			bad = append(bad, e.IP.String())
			if len(ev) < 20 {
				ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "Policies[PA]", Value: e.ProviderAddress.String(),
					Expected: "the ProviderAddress of the node that hosts " + e.IP.String(), Note: "MAC " + e.MAC})
			}
		}
		if len(bad) == 0 {
			continue
		}
		ev = append(ev, finding.Evidence{File: n.ManagementIPFile, Object: networkObject(n), Field: n.ManagementIPField, Value: n.ManagementIP.String()},
			finding.Evidence{File: networkFile(n), Object: networkObject(n), Field: "RemoteSubnetRoutes", Value: describeRoutes(n)})
		issues = append(issues, Issue{Summary: fmt.Sprintf("%d remote pod endpoint(s) on %s are sent to this node's own address %s instead of their node: %s — no RemoteSubnetRoute covered them when kube-proxy programmed them",
			len(bad), n.Name, n.ManagementIP, strings.Join(firstN(bad, 5), ", ")), Evidence: ev, Subjects: []string{"network:" + n.Name, "address:" + n.ManagementIP.String()}})
	}
	return issues, nil
}

func init() {
	register(&Rule{
		ID: "NAT-03", Title: "Pod endpoint without OutBoundNAT", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks:  "When some local pod endpoints of a network have an OutBoundNAT policy, all of them do.",
		Why:     "A pod created without OutBoundNAT (a CNI race, often the first pods after a large image pull) reaches nothing outside the cluster while its neighbours work; deleting the pod fixes it.",
		Fix:     "Delete the affected pods so the CNI recreates their endpoints; upgrade the CNI plugin if it recurs (Calico fixed a race that skipped the policy).",
		Sources: []string{"https://github.com/projectcalico/calico/issues/12862", "https://github.com/projectcalico/cni-plugin/pull/1069", "https://github.com/rancher/rke2/issues/2362"},
		Check:   checkMissingOutboundNAT,
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go (ApplyOutboundNatPolicy; ApplyLoopbackDSR adds an OutBoundNAT with Destinations, not SNAT)",
			"Calico cni-plugin/internal/pkg/utils/winpol/windows_policy.go CalculateEndpointPolicies (drops OutBoundNAT when the pool has natOutgoing false)",
		},
		Guards: []string{
			"compared per network: a network where no pod has OutBoundNAT (Calico natOutgoing false) is not flagged",
			"an OutBoundNAT with Destinations (loopback DSR) is not counted as the SNAT policy",
			guardPodLocal,
			"endpoints whose policies the input hid are not judged",
			guardLinux,
		},
	})
}

func checkMissingOutboundNAT(s *snapshot.Snapshot) ([]Issue, error) {
	type group struct{ with, without []*snapshot.Endpoint }
	byNet := map[string]*group{}
	var order []string
	for _, e := range localPods(s) {
		if !e.Knows("Policies") {
			continue
		}
		g := byNet[e.NetworkName]
		if g == nil {
			g = &group{}
			byNet[e.NetworkName] = g
			order = append(order, e.NetworkName)
		}
		if e.OutboundNAT != nil && len(e.OutboundNAT.Destinations) == 0 {
			g.with = append(g.with, e)
		} else {
			g.without = append(g.without, e)
		}
	}
	var issues []Issue
	for _, name := range order {
		g := byNet[name]
		if len(g.with) == 0 || len(g.without) == 0 {
			continue
		}
		var ips []string
		var ev []finding.Evidence
		for _, e := range g.without {
			ips = append(ips, e.IP.String())
			if len(ev) < 20 {
				ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "Policies", Value: policyTypes(e), Expected: "an OutBoundNAT policy like " + g.with[0].IP.String() + "'s"})
			}
		}
		issues = append(issues, Issue{Summary: fmt.Sprintf("%d of %d pod endpoints on network %s have no OutBoundNAT and cannot reach outside the cluster: %s",
			len(g.without), len(g.with)+len(g.without), name, strings.Join(firstN(ips, 5), ", ")), Evidence: ev, Subjects: []string{"network:" + name}})
	}
	return issues, nil
}

func policyTypes(e *snapshot.Endpoint) string {
	var out []string
	for _, p := range e.Policies {
		out = append(out, p.Type)
	}
	return orNone(out)
}
