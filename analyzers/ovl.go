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
		ID:       "OVL-01",
		Title:    "ManagementIP on the wrong adapter",
		Severity: finding.Fail,
		Needs:    []snapshot.Input{snapshot.InputHNSNetworks},
		Checks: "The overlay/L2Bridge network's ManagementIP (V1 ManagementIP, V2 ProviderAddress policy) is the " +
			"address peers encapsulate to. It must not be an APIPA address or VirtualBox's NAT address 10.0.2.15, " +
			"must be the node's InternalIP (or flannel public-ip) when the bundle has the Node, and must sit on the " +
			"adapter through which the peers' ProviderAddresses are reachable.",
		Why: "When the vSwitch is created on the wrong NIC (the first or default-route adapter: Vagrant's NAT NIC, " +
			"a NAT gateway, an adapter without DHCP lease), peers send VXLAN to an address that is not this node's " +
			"underlay IP and all cross-node pod traffic dies: SYNs from other nodes' pods are retransmitted and never answered.",
		Fix: "Recreate the HNS network on the adapter that carries the node's underlay IP: Calico for Windows: set " +
			"VXLAN_ADAPTER in config.ps1 (Calico 3.21+); flannel: start flanneld with --iface=<node IP>; then restart kube-proxy.",
		Sources: []string{
			"https://github.com/knabben/blog/blob/5fe9f9e022043b39d32e3599428cadb367fc6aa6/content/2021/0903/_index.md",
			"https://github.com/kubernetes-sigs/sig-windows-dev-tools/pull/84",
			"https://github.com/flannel-io/flannel/pull/764",
			"https://github.com/projectcalico/calico/issues/4260",
			"microsoft/SDN networkhealth.ps1 IncorrectManagementIpTest",
		},
		Check: checkManagementIP,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go RegisterNetwork (the lease's PublicIP is the --iface address; checkHostNetworkReady)",
			"Calico node/windows-packaging/CalicoWindows/config.ps1 (VXLAN_ADAPTER) and node/node-service.ps1 (External network on that adapter)",
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 IncorrectManagementIpTest (APIPA)",
		},
		Guards: []string{
			guardPodNet,
			"a network without a ManagementIP is OVL-10's case, not judged here",
			"10.0.2.15 is accepted on a real 10.0.2.0/24 network where kubelet uses it and every peer VTEP is another address of that subnet",
			"the node's InternalIP and flannel's public-ip annotation both count as the right address",
			"peers in routed subnets (no on-link prefix holds them all) give no adapter hint",
			"APIPA and single-host (/32) adapter addresses are never taken for the peers' adapter",
			guardLinux,
		},
	})
	register(&Rule{
		ID:       "OVL-02",
		Title:    "Missing RemoteSubnetRoute for a peer's pod subnet",
		Severity: finding.Fail,
		Needs:    []snapshot.Input{snapshot.InputHNSNetworks},
		Checks: "Every other node in the VXLAN overlay has a RemoteSubnetRoute on this node's overlay network covering " +
			"its pod subnet (flannel: the Node's podCIDR; Calico: the IPAM block holding its VXLAN tunnel address). " +
			"Without Kubernetes Nodes in the bundle, every remote pod endpoint kube-proxy programmed must be covered by a RemoteSubnetRoute.",
		Why: "HNS encapsulates traffic to a remote pod subnet only through a RemoteSubnetRoute; without one, pods on that node " +
			"are unreachable from here and services with backends there fail (kube-proxy logs \"Could not find provider address, assuming it is a public IP\").",
		Fix: "Find why the CNI agent did not program the route (VNI below 4096 or VXLAN port mismatch, empty VtepMAC, the agent " +
			"not watching, HNS restarted) and restart flanneld / calico-node (Felix) on this node; after an HNS restart recreate the network.",
		Sources: []string{
			"https://github.com/flannel-io/flannel/issues/1394",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go",
			"kube-proxy pkg/proxy/winkernel/proxier.go findRemoteSubnetProviderAddress",
			"Calico felix/dataplane/windows/vxlan_mgr.go",
		},
		Check: checkRemoteSubnetRoutes,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go handleSubnetEvents (one RemoteSubnetRoute per peer lease: its pod subnet, PublicIP, VtepMAC)",
			"Calico felix/dataplane/windows/vxlan_mgr.go (one RemoteSubnetRoute per remote block)",
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (findRemoteSubnetProviderAddress; no route: \"Could not find provider address, assuming it is a public IP\")",
		},
		Guards: []string{
			guardOverlay + "; L2Bridge peers are reached by host routes (FLN-02)",
			"skipped when the network's policies are not all visible (a cut paste)",
			guardSelf,
			"Calico: peers without a VXLAN tunnel address are not in the overlay; flannel: peers whose backend type is not vxlan are skipped",
			"a route for a wider prefix covers a peer's pod subnet; IPv6 pod subnets are not judged",
			"without Nodes only remote pod endpoints are judged: the own subnet, the service CIDR and node addresses are not pods",
			"without the cluster CIDR a pod endpoint is recognised by kube-proxy's conjured 02-11 MAC",
			guardLinux,
		},
	})
}

func checkManagementIP(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, n := range cniNetworks(s) {
		if is, ok := managementIPIssue(s, n); ok {
			issues = append(issues, is)
		}
	}
	return issues, nil
}

func managementIPIssue(s *snapshot.Snapshot, n *snapshot.Network) (Issue, bool) {
	mip := n.ManagementIP
	if !mip.IsValid() {
		return Issue{}, false // no address at all is OVL-10's case
	}
	var why []string
	ev := []finding.Evidence{{
		File: n.ManagementIPFile, Object: networkObject(n), Field: n.ManagementIPField, Value: mip.String(),
	}}
	bound := s.AdapterWithAddr(mip)
	if bound != nil {
		ev = append(ev, finding.Evidence{File: s.Inputs[snapshot.InputHostAdapters], Object: "adapter " + quote(bound.Name), Field: "IPAddress", Value: mip.String(),
			Note: "the adapter the vSwitch is bound to (" + bound.Description + ")"})
	}

	// The peers' VTEP addresses, and the host adapter whose subnet holds them.
	peers := peerProviderAddresses(n)
	peerAdapter, peerPrefix, peerAddr := adapterForPeers(s, peers)

	self := s.SelfKubeNode()
	var internal netip.Addr
	if self != nil {
		internal = sameFamily(self.InternalIPs, mip)
	}

	expected, what := "", ""
	switch {
	case snapshot.IsAPIPA(mip):
		what = " (APIPA: the adapter had no DHCP lease when the vSwitch was created)"
	case mip == snapshot.VagrantNATAddr && !legitimateNATSubnet(mip, internal, peers):
		what = " (the VirtualBox/Vagrant NAT address, the same on every VM and unreachable from peers)"
	}
	if internal.IsValid() && internal != mip && self.FlannelPublicIP() != mip {
		why = append(why, "not the node's InternalIP "+internal.String())
		ev = append(ev, finding.Evidence{File: s.Inputs[snapshot.InputKubeNodes], Object: "node " + self.Name, Field: "status.addresses[InternalIP]",
			Value: internal.String(), Note: "the address kubelet registered; this node is " + self.Name + " by " + s.Facts.Name.Source})
		expected = internal.String()
	}
	if peerAdapter == nil && what != "" && len(peers) > 0 {
		why = append(why, "the peers' VTEPs are "+joinAddrs(peers))
	}
	if peerAdapter != nil && !peerPrefix.Contains(mip) {
		why = append(why, fmt.Sprintf("the peers' VTEPs (%s) are on %s, reachable through %s (%s)",
			joinAddrs(peers), peerPrefix.Masked(), quote(peerAdapter.Name), peerAddr))
		ev = append(ev, finding.Evidence{File: s.Inputs[snapshot.InputHostAdapters], Object: "adapter " + quote(peerAdapter.Name), Field: "IPAddress",
			Value: peerAddr.String(), Note: "on the subnet of the peers' ProviderAddresses"})
		expected = peerAddr.String()
	}
	if len(why) == 0 && what == "" {
		return Issue{}, false
	}
	// The peers' routes are evidence only of an issue: a healthy node of a
	// large cluster has a thousand of them.
	if len(peers) > 0 {
		rsr := n.RemoteSubnetRoutes
		for _, r := range rsr {
			if r.ProviderAddress.IsValid() && r.ProviderAddress != mip {
				ev = append(ev, finding.Evidence{File: networkFile(n), Object: networkObject(n),
					Field: fmt.Sprintf("Policies[%d] RemoteSubnetRoute %s ProviderAddress", r.Index, r.DestinationPrefix), Value: r.ProviderAddress.String(),
					Note: "a peer's VTEP"})
			}
		}
	}
	if peerAdapter != nil && peerPrefix.Contains(mip) {
		peerAdapter = nil // the fix must not point at the adapter already in use
	}
	if expected != "" {
		ev[0].Expected = expected
	}
	kind := strings.ToLower(n.Type)
	if n.Type == snapshot.TypeL2Bridge {
		kind = "l2bridge"
	}
	summary := fmt.Sprintf("%s network %s has ManagementIP %s%s", kind, n.Name, mip, what)
	if len(why) > 0 {
		summary += ": " + strings.Join(why, "; ")
	}
	return Issue{Summary: summary, Evidence: ev, Remediation: managementIPFix(s, n, peerAdapter, peerAddr, internal),
		Subjects: []string{"network:" + n.Name, "address:" + mip.String()}}, true
}

// legitimateNATSubnet guards the one case where 10.0.2.15 is right: a real
// network on 10.0.2.0/24 where kubelet uses that address and the peers'
// VTEPs are other addresses of the same subnet.
func legitimateNATSubnet(mip, internal netip.Addr, peers []netip.Addr) bool {
	if internal != mip || len(peers) == 0 {
		return false
	}
	for _, p := range peers {
		if p == mip || !snapshot.VagrantNATPrefix.Contains(p) {
			return false
		}
	}
	return true
}

func managementIPFix(s *snapshot.Snapshot, n *snapshot.Network, adapter *snapshot.HostAdapter, addr, internal netip.Addr) string {
	target := "the adapter that carries the node's underlay IP"
	ip := "<node IP>"
	if internal.IsValid() {
		ip = internal.String()
	}
	if adapter != nil {
		target = fmt.Sprintf("adapter %s (%s)", quote(adapter.Name), addr)
		ip = addr.String()
	}
	var how string
	switch flavorOf(s, n) {
	case cniCalico:
		name := "<adapter name>"
		if adapter != nil {
			name = strings.TrimSuffix(strings.TrimPrefix(adapter.Name, "vEthernet ("), ")")
		}
		how = fmt.Sprintf("Calico for Windows: set VXLAN_ADAPTER = %q in config.ps1 (Calico 3.21+), drain the node, "+
			"remove the %s and External HNS networks (Remove-HnsNetwork) and restart the Calico services, then kube-proxy", name, n.Name)
	case cniFlannel:
		how = fmt.Sprintf("flannel: start flanneld with --iface=%s, delete the %s HNS network and restart flanneld, then kube-proxy", ip, n.Name)
	default:
		how = fmt.Sprintf("Calico: VXLAN_ADAPTER in config.ps1; flannel: --iface=%s; then delete the network, restart the CNI agent and kube-proxy", ip)
	}
	if snapshot.IsAPIPA(n.ManagementIP) {
		how = "first give the adapter a real address (check DHCP), then " + how
	}
	return fmt.Sprintf("Recreate network %s on %s. %s.", n.Name, target, how)
}

// peerProviderAddresses are the distinct VTEP addresses of the network's
// RemoteSubnetRoutes, other than its own.
func peerProviderAddresses(n *snapshot.Network) []netip.Addr {
	var out []netip.Addr
	for _, r := range n.RemoteSubnetRoutes {
		if pa := r.ProviderAddress; pa.IsValid() && pa != n.ManagementIP {
			out = append(out, pa)
		}
	}
	// Sorted, then each once: no set of a large cluster's thousand peers.
	slices.SortFunc(out, netip.Addr.Compare)
	return slices.Compact(out)
}

// adapterForPeers finds the host adapter with an on-link prefix holding every
// peer address. Peers in routed subnets (no common on-link prefix) give none,
// and then the heuristic says nothing.
func adapterForPeers(s *snapshot.Snapshot, peers []netip.Addr) (*snapshot.HostAdapter, netip.Prefix, netip.Addr) {
	if len(peers) == 0 {
		return nil, netip.Prefix{}, netip.Addr{}
	}
	for _, a := range s.Adapters {
		for _, p := range a.Addresses {
			if snapshot.IsAPIPA(p.Addr()) || p.Bits() == p.Addr().BitLen() {
				continue
			}
			all := true
			for _, peer := range peers {
				all = all && p.Contains(peer)
			}
			if all {
				return a, p, p.Addr()
			}
		}
	}
	return nil, netip.Prefix{}, netip.Addr{}
}

func sameFamily(addrs []netip.Addr, like netip.Addr) netip.Addr {
	for _, a := range addrs {
		if a.Is4() == like.Is4() {
			return a
		}
	}
	return netip.Addr{}
}

func joinAddrs(addrs []netip.Addr) string {
	parts := make([]string, len(addrs))
	for i, a := range addrs {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

func quote(s string) string { return "'" + s + "'" }

func checkRemoteSubnetRoutes(s *snapshot.Snapshot) ([]Issue, error) {
	var overlays []*snapshot.Network
	for _, n := range cniNetworks(s) {
		if n.Type == snapshot.TypeOverlay {
			overlays = append(overlays, n)
		}
	}
	if len(overlays) == 0 {
		return nil, nil // L2Bridge routes between nodes are host routes (FLN-02)
	}
	var issues []Issue
	for _, n := range overlays {
		if !n.Knows("Policies") {
			return nil, Skip("the RemoteSubnetRoutes of network %s are not all visible (%s): collect with diag collect, or Get-HnsNetwork | ConvertTo-Json -Depth 10",
				n.Name, strings.Join(n.Unknown, "; "))
		}
		switch {
		case s.Has(snapshot.InputKubeNodes):
			issues = append(issues, missingRoutesForNodes(s, n, newRouteIndex(n))...)
		case s.Has(snapshot.InputHNSEndpoints):
			issues = append(issues, uncoveredRemoteEndpoints(s, n, newRouteIndex(n))...)
		default:
			return nil, Skip("no %s (the peers' pod subnets) and no %s (remote pod addresses)",
				snapshot.InputFiles[snapshot.InputKubeNodes], snapshot.InputFiles[snapshot.InputHNSEndpoints])
		}
	}
	return issues, nil
}

// missingRoutesForNodes checks one RemoteSubnetRoute per peer node.
func missingRoutesForNodes(s *snapshot.Snapshot, n *snapshot.Network, routes *routeIndex) []Issue {
	calico := flavorOf(s, n) == cniCalico
	var issues []Issue
	routesText := "" // describeRoutes, once: every finding shows the same routes
	for _, node := range s.KubeNodes {
		if isSelfNode(s, n, node) {
			continue
		}
		var want []netip.Prefix // pod subnets that need a route (flannel)
		var holds netip.Addr    // an address a route must cover (Calico)
		if calico {
			holds = node.CalicoVXLANTunnelAddr()
			if !holds.Is4() {
				continue // not in the VXLAN overlay (or calico-node never ran there)
			}
		} else {
			if bt := node.Annotations.Get(snapshot.AnnotationFlannelBackendType); bt != "" && !strings.EqualFold(bt, "vxlan") {
				continue
			}
			for _, p := range node.PodCIDRs {
				if p.Addr().Is4() {
					want = append(want, p)
				}
			}
		}
		missing := ""
		switch {
		case holds.IsValid() && !routes.covers(holds):
			missing = "the IPAM block holding its VXLAN tunnel address " + holds.String()
		case len(want) > 0:
			for _, p := range want {
				if !routes.coversPrefix(p) {
					missing = "pod subnet " + p.String()
					break
				}
			}
		}
		if missing == "" {
			continue
		}
		vtep := vtepAddress(node)
		if routesText == "" {
			routesText = describeRoutes(n)
		}
		ev := []finding.Evidence{
			{File: networkFile(n), Object: networkObject(n), Field: "Policies[RemoteSubnetRoute]",
				Value: routesText, Expected: "a route for " + missing + " via ProviderAddress " + vtep},
			{File: s.Inputs[snapshot.InputKubeNodes], Object: "node " + node.Name, Field: peerField(calico), Value: peerValue(node, calico, holds)},
		}
		subjects := []string{"network:" + n.Name, "node:" + node.Name}
		if holds.IsValid() {
			subjects = append(subjects, "address:"+holds.String())
		}
		for _, p := range want {
			subjects = append(subjects, "prefix:"+p.String())
		}
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("no RemoteSubnetRoute on network %s for node %s (%s, VTEP %s): its pods are unreachable from this node",
				n.Name, node.Name, missing, vtep),
			Evidence: ev,
			Subjects: subjects,
		})
	}
	return issues
}

// uncoveredRemoteEndpoints is the check without Kubernetes data: remote pod
// endpoints kube-proxy created that no RemoteSubnetRoute covers.
func uncoveredRemoteEndpoints(s *snapshot.Snapshot, n *snapshot.Network, routes *routeIndex) []Issue {
	cluster := s.Facts.ClusterCIDR.Prefix()
	services := s.Facts.ServiceCIDR.Prefix()
	var lost []*snapshot.Endpoint
	for _, e := range s.Endpoints {
		if !e.IsRemote || !e.IP.Is4() || !strings.EqualFold(e.NetworkID, n.ID) && !strings.EqualFold(e.NetworkName, n.Name) {
			continue
		}
		if n.ContainsAddr(e.IP) || services.IsValid() && services.Contains(e.IP) || routes.isProviderAddress(e.IP) {
			continue // own subnet (Calico_ep, source VIP), a service VIP, or a node IP
		}
		// A pod IP: inside the cluster CIDR when known, else recognised by
		// the MAC kube-proxy conjures for remote pod backends (02-11-<ip>).
		if cluster.IsValid() && !cluster.Contains(e.IP) || !cluster.IsValid() && !strings.HasPrefix(e.MAC, "02:11:") {
			continue
		}
		if !routes.covers(e.IP) {
			lost = append(lost, e)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	ev := []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "Policies[RemoteSubnetRoute]", Value: describeRoutes(n)}}
	for _, fact := range []struct {
		name string
		f    snapshot.Fact
	}{{"cluster CIDR", s.Facts.ClusterCIDR}, {"service CIDR", s.Facts.ServiceCIDR}} {
		if fact.f.Known() {
			ev = append(ev, finding.Evidence{File: fact.f.Source, Field: fact.name, Value: fact.f.Value, Note: "node fact used to tell pod IPs from service IPs"})
		}
	}
	var ips []string
	for _, e := range lost {
		ips = append(ips, e.IP.String())
		ev = append(ev, finding.Evidence{File: e.Refs[0].File, Object: "endpoint " + e.ID, Field: "IPAddress", Value: e.IP.String(),
			Expected: "covered by a RemoteSubnetRoute", Note: "remote endpoint, ProviderAddress " + addrOrNone(e.ProviderAddress)})
	}
	subjects := []string{"network:" + n.Name}
	for _, ip := range ips {
		subjects = append(subjects, "address:"+ip)
	}
	return []Issue{{
		Summary: fmt.Sprintf("no RemoteSubnetRoute on network %s covers remote pod endpoint(s) %s: traffic to them is not encapsulated to their node",
			n.Name, strings.Join(ips, ", ")),
		Evidence: ev,
		Subjects: subjects,
	}}
}

// isSelfNode recognises this node among the Kubernetes Nodes: by name, else
// by its addresses or pod subnet.
func isSelfNode(s *snapshot.Snapshot, n *snapshot.Network, node *snapshot.KubeNode) bool {
	if self := s.SelfKubeNode(); self != nil {
		return self == node
	}
	if n.ManagementIP.IsValid() && node.HasAddr(n.ManagementIP) {
		return true
	}
	for _, ip := range node.InternalIPs {
		if s.AdapterWithAddr(ip) != nil {
			return true
		}
	}
	if t := node.CalicoVXLANTunnelAddr(); t.IsValid() && n.ContainsAddr(t) {
		return true
	}
	for _, p := range node.PodCIDRs {
		for _, sub := range n.Subnets {
			if sub.Prefix == p {
				return true
			}
		}
	}
	return false
}

// vtepAddress is the underlay address a peer's VTEP should have: flannel's
// public-ip annotation, else the Node's InternalIP.
func vtepAddress(node *snapshot.KubeNode) string {
	if ip := node.FlannelPublicIP(); ip.IsValid() {
		return ip.String()
	}
	return addrOrNone(node.InternalIP())
}

// routesShown bounds the routes an OVL-02 finding lists: each finding
// carries the network's routes, and a node missing half of a 1,000-node
// cluster's routes made a report of 14.5 MB listing all of them 500 times.
const routesShown = 10

func describeRoutes(n *snapshot.Network) string {
	if len(n.RemoteSubnetRoutes) == 0 {
		return "none"
	}
	parts := make([]string, 0, min(len(n.RemoteSubnetRoutes), routesShown))
	for _, r := range n.RemoteSubnetRoutes[:min(len(n.RemoteSubnetRoutes), routesShown)] {
		parts = append(parts, r.DestinationPrefix.String()+" via "+addrOrNone(r.ProviderAddress))
	}
	if more := len(n.RemoteSubnetRoutes) - len(parts); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(parts, ", ")
}

func peerField(calico bool) string {
	if calico {
		return "metadata.annotations[" + snapshot.AnnotationCalicoVXLANAddr + "]"
	}
	return "spec.podCIDRs"
}

func peerValue(node *snapshot.KubeNode, calico bool, holds netip.Addr) string {
	if calico {
		return holds.String()
	}
	parts := make([]string, len(node.PodCIDRs))
	for i, p := range node.PodCIDRs {
		parts[i] = p.String()
	}
	return strings.Join(parts, ", ")
}

func addrOrNone(a netip.Addr) string {
	if !a.IsValid() {
		return "none"
	}
	return a.String()
}
