package analyzers

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "OVL-03", Title: "VNI mismatch or below 4096", Severity: finding.Fail,
		Needs:  []snapshot.Input{snapshot.InputHNSNetworks},
		Checks: "The overlay network's VSID (its VNI) is 4096 or more, every RemoteSubnetRoute carries the same IsolationId, and every node's flannel backend-data VNI is the same.",
		Why:    "Windows drops VXLAN with another VNI and needs 4096 or more; Linux flannel defaults to VNI 1, so mixed clusters break one way or both.",
		Fix:    `Set "VNI": 4096 (and "Port": 4789) in flannel's net-conf.json for the whole cluster (k3s: --flannel-conf); Calico: VXLAN_VNI, then drain and recreate the network.`,
		Sources: []string{"https://github.com/k3s-io/k3s/issues/9295", "https://github.com/flannel-io/flannel/pull/1215",
			"https://kubernetes.io/docs/concepts/services-networking/windows-networking/"},
		Check: checkVNI,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (VNI must be 4096 or more on Windows)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute IsolationId = the lease's VNI; leases below 4096 are skipped)",
			"Calico node/windows-packaging/CalicoWindows/config.ps1 (VXLAN_VNI 4096)",
		},
		Guards: []string{
			guardOverlay,
			"a VSID the input hid, and routes whose IsolationId is not shown (0), are not judged",
			"nodes that publish no flannel VNI are not compared",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "OVL-05", Title: "DR MAC / VtepMAC mismatch", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks},
		Checks:  "The overlay network has a DrMacAddress equal to the VtepMAC this node publishes (flannel backend-data, Calico VXLANTunnelMACAddr), and every RemoteSubnetRoute carries a DR MAC equal to the peer's published one.",
		Why:     "Windows decapsulates at layer 2: frames to a stale DR MAC are dropped. After a node or its network is recreated the MAC changes while routes keep the old one.",
		Fix:     "Restart flanneld (or calico-node) on the node whose MAC changed so that it republishes it, then on its peers so that their routes follow.",
		Sources: []string{"https://github.com/flannel-io/flannel/pull/1137", "https://github.com/flannel-io/flannel/issues/1330", "https://github.com/flannel-io/flannel/pull/1078"},
		Check:   checkDrMAC,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go RegisterNetwork (publishes the network's DrMacAddress as VtepMAC)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute DistributedRouterMacAddress = the peer's VtepMAC; none without one)",
			"Calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go (DR MAC published as VXLANTunnelMACAddr)",
		},
		Guards: []string{
			guardOverlay,
			"a missing DrMacAddress is reported only when the input shows it and the policies in full",
			"this node's published MAC is compared only when the node is identified; a peer's only when a route matches it (pod CIDR or Calico tunnel address)",
			"routes matched to no node are not compared (stale routes are OVL-07's)",
			"MACs are compared in one normalised form (case, separators)",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "OVL-06", Title: "Wrong ProviderAddress in a RemoteSubnetRoute", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks},
		Checks:  "No RemoteSubnetRoute points at this node's own ManagementIP, at an APIPA, loopback or Vagrant NAT address, or (with Kubernetes Nodes) at an address no node has.",
		Why:     "The route's ProviderAddress is where VXLAN for that pod subnet is sent: a wrong one black-holes a node's pods.",
		Fix:     "Fix the peer's interface selection (flannel --iface / --public-ip, Calico IP autodetection) and restart its agent so that routes are republished.",
		Sources: []string{"https://github.com/flannel-io/flannel/pull/764", "https://github.com/coreos/bugs/issues/2223"},
		Check:   checkProviderAddresses,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (ProviderAddress = the peer lease's PublicIP)",
			"Calico felix/dataplane/windows/vxlan_mgr.go (ProviderAddress = the peer VTEP's parent device IP)",
		},
		Guards: []string{
			guardOverlay,
			"routes without a ProviderAddress are not judged",
			"'no node has it' only with Kubernetes Nodes in the bundle; InternalIP, ExternalIP, flannel public-ip and Calico IPv4Address all count",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "OVL-07", Title: "Stale or overlapping RemoteSubnetRoutes", Severity: finding.Warn,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks},
		Checks:  "No two RemoteSubnetRoutes overlap, none overlaps the network's own subnet (fail), and with Kubernetes Nodes every route belongs to a current node (warn when stale).",
		Why:     "Routes left from deleted or re-joined nodes send reused pod IPs to the old node; an overlap with the own subnet breaks local pods.",
		Fix:     "Restart flanneld / calico-node so it reconciles the routes, or recreate the network; after a re-join remove stale subnet.env and SourceVip files.",
		Sources: []string{"https://github.com/flannel-io/flannel/issues/2554", "https://github.com/flannel-io/flannel/issues/1182"},
		Check:   checkStaleRoutes,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (on a lease event: removes the route of the same prefix, adds the new; removes on expiry)",
			"Calico felix/dataplane/windows/vxlan_mgr.go (diffs routes against its blocks)",
		},
		Guards: []string{
			guardOverlay,
			"stale routes are judged only with Kubernetes Nodes in the bundle, and are a warning",
			"Calico: a route to a current node's address is not stale (a node may own several blocks)",
			"routes without a valid destination prefix are skipped",
			guardSelf,
			guardLinux,
		},
	})
	register(&Rule{
		ID: "OVL-10", Title: "ManagementIP missing or on no host adapter", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks},
		Checks:  "The overlay/L2Bridge network has a ManagementIP, and (with host adapters) a host adapter holds it.",
		Why:     "The agent started before the vSwitch and its vNIC had an address (flannel: 'Cannot find network with Management IP'); nothing can be encapsulated.",
		Fix:     "Restart flanneld / calico-node after the external vSwitch is up; create the External network first and wait for its vNIC.",
		Sources: []string{"https://github.com/flannel-io/flannel/issues/1066", "https://github.com/flannel-io/flannel/pull/1857"},
		Check:   checkManagementIPPresent,
		Upstream: []string{
			"flannel pkg/backend/vxlan/device_windows.go (waits for the network's ManagementIP / ProviderAddress)",
			"flannel pkg/backend/vxlan/vxlan_windows.go checkHostNetworkReady (waits for the host interface holding it)",
			"Calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go (waits for ManagementIP)",
		},
		Guards: []string{
			guardPodNet,
			"a ManagementIP the input hid is not judged",
			"L2Bridge networks seen only through HNS V2 are not judged: V2 shows no ProviderAddress for them",
			"'no host adapter holds it' is judged only with host adapters in the bundle",
			guardLinux,
		},
	})
}

func overlayNetworks(s *snapshot.Snapshot) []*snapshot.Network {
	var out []*snapshot.Network
	for _, n := range cniNetworks(s) {
		if n.Type == snapshot.TypeOverlay {
			out = append(out, n)
		}
	}
	return out
}

func netVSID(n *snapshot.Network) int64 {
	if !n.Knows("Subnets") {
		return 0
	}
	for _, s := range n.Subnets {
		if s.VSID != 0 {
			return s.VSID
		}
	}
	return 0
}

func checkVNI(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, n := range overlayNetworks(s) {
		vsid := netVSID(n)
		if vsid != 0 && vsid < 4096 {
			issues = append(issues, Issue{Summary: fmt.Sprintf("overlay network %s uses VNI %d: Windows needs 4096 or more", n.Name, vsid),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "Subnets[].VSID", Value: strconv.FormatInt(vsid, 10), Expected: "≥ 4096"}},
				Subjects: []string{"network:" + n.Name}})
		}
		want := vsid
		for _, r := range n.RemoteSubnetRoutes {
			if want == 0 {
				want = r.IsolationID
			}
			if r.IsolationID != 0 && want != 0 && r.IsolationID != want {
				issues = append(issues, Issue{Summary: fmt.Sprintf("RemoteSubnetRoute %s on network %s carries VNI %d, the network uses %d: traffic to that subnet is not decapsulated",
					r.DestinationPrefix, n.Name, r.IsolationID, want),
					Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] RemoteSubnetRoute IsolationId", r.Index),
						Value: strconv.FormatInt(r.IsolationID, 10), Expected: strconv.FormatInt(want, 10)}},
					Subjects: []string{"network:" + n.Name, "prefix:" + r.DestinationPrefix.String()}})
			}
		}
		if want == 0 {
			continue
		}
		for _, k := range s.KubeNodes {
			if vni, _, ok := k.FlannelBackend(); ok && vni != 0 && vni != want {
				issues = append(issues, Issue{Summary: fmt.Sprintf("node %s publishes flannel VNI %d, network %s here uses %d", k.Name, vni, n.Name, want),
					Evidence: []finding.Evidence{{File: s.Inputs[snapshot.InputKubeNodes], Object: "node " + k.Name, Field: "metadata.annotations[" + snapshot.AnnotationFlannelBackendData + "].VNI",
						Value: strconv.FormatInt(vni, 10), Expected: strconv.FormatInt(want, 10)}},
					Subjects: []string{"node:" + k.Name}})
			}
		}
	}
	return issues, nil
}

// publishedVtepMAC is the VTEP MAC a node announces: flannel's VtepMAC or
// Calico's VXLANTunnelMACAddr.
func publishedVtepMAC(k *snapshot.KubeNode) (mac, field string) {
	if _, m, ok := k.FlannelBackend(); ok && m != "" {
		return m, snapshot.AnnotationFlannelBackendData + ".VtepMAC"
	}
	if m := snapshot.NormalizeMAC(k.Annotations.Get(snapshot.AnnotationCalicoVXLANMAC)); m != "" {
		return m, snapshot.AnnotationCalicoVXLANMAC
	}
	return "", ""
}

func checkDrMAC(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, n := range overlayNetworks(s) {
		if n.DrMAC == "" && n.Knows("DrMacAddress") && n.Knows("Policies") {
			issues = append(issues, Issue{Summary: fmt.Sprintf("overlay network %s has no DrMacAddress: peers cannot address this node's VTEP", n.Name),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "DrMacAddress", Value: "(none)"}},
				Subjects: []string{"network:" + n.Name}})
		}
		if self := s.SelfKubeNode(); self != nil && n.DrMAC != "" {
			if mac, field := publishedVtepMAC(self); mac != "" && mac != n.DrMAC {
				issues = append(issues, Issue{Summary: fmt.Sprintf("node %s publishes VTEP MAC %s, but network %s's DR MAC is %s: peers address a MAC this node no longer has",
					self.Name, mac, n.Name, n.DrMAC),
					Evidence: []finding.Evidence{
						{File: networkFile(n), Object: networkObject(n), Field: "DrMacAddress", Value: n.DrMAC},
						{File: s.Inputs[snapshot.InputKubeNodes], Object: "node " + self.Name, Field: "metadata.annotations[" + field + "]", Value: mac, Expected: n.DrMAC}},
					Subjects: []string{"network:" + n.Name, "node:" + self.Name}})
			}
		}
		peers := newPeerIndex(s, n)
		for _, r := range n.RemoteSubnetRoutes {
			if r.DrMAC == "" {
				issues = append(issues, Issue{Summary: fmt.Sprintf("RemoteSubnetRoute %s on network %s has no DR MAC", r.DestinationPrefix, n.Name),
					Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] DistributedRouterMacAddress", r.Index), Value: "(empty)"}},
					Subjects: []string{"network:" + n.Name, "prefix:" + r.DestinationPrefix.String()}})
				continue
			}
			peer := peers.peer(r)
			if peer == nil {
				continue
			}
			if mac, field := publishedVtepMAC(peer); mac != "" && mac != r.DrMAC {
				issues = append(issues, Issue{Summary: fmt.Sprintf("RemoteSubnetRoute %s on network %s sends to DR MAC %s, but node %s publishes %s",
					r.DestinationPrefix, n.Name, r.DrMAC, peer.Name, mac),
					Evidence: []finding.Evidence{
						{File: networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] DistributedRouterMacAddress", r.Index), Value: r.DrMAC, Expected: mac},
						{File: s.Inputs[snapshot.InputKubeNodes], Object: "node " + peer.Name, Field: "metadata.annotations[" + field + "]", Value: mac}},
					Subjects: []string{"network:" + n.Name, "node:" + peer.Name}})
			}
		}
	}
	return issues, nil
}

// nodeAddresses are the underlay addresses the Kubernetes Nodes announce.
func nodeAddresses(s *snapshot.Snapshot) map[netip.Addr]string {
	out := map[netip.Addr]string{}
	for _, k := range s.KubeNodes {
		for _, a := range append(append([]netip.Addr{}, k.InternalIPs...), k.ExternalIPs...) {
			out[a] = k.Name
		}
		if a := k.FlannelPublicIP(); a.IsValid() {
			out[a] = k.Name
		}
		if a := k.CalicoNodeIP(); a.IsValid() {
			out[a] = k.Name
		}
	}
	return out
}

func checkProviderAddresses(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	known := nodeAddresses(s)
	for _, n := range overlayNetworks(s) {
		for _, r := range n.RemoteSubnetRoutes {
			pa := r.ProviderAddress
			if !pa.IsValid() {
				continue
			}
			why := ""
			switch {
			case pa == n.ManagementIP:
				why = "is this node's own ManagementIP: the route loops back"
			case snapshot.IsAPIPA(pa):
				why = "is an APIPA address"
			case pa.IsLoopback():
				why = "is a loopback address"
			case pa == snapshot.VagrantNATAddr:
				why = "is the VirtualBox/Vagrant NAT address every VM has"
			case len(known) > 0 && known[pa] == "":
				why = "is no node's InternalIP, flannel public-ip or Calico IPv4Address"
			}
			if why == "" {
				continue
			}
			issues = append(issues, Issue{Summary: fmt.Sprintf("RemoteSubnetRoute %s on network %s sends to ProviderAddress %s, which %s", r.DestinationPrefix, n.Name, pa, why),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] RemoteSubnetRoute ProviderAddress", r.Index), Value: pa.String()}},
				Subjects: []string{"network:" + n.Name, "address:" + pa.String(), "prefix:" + r.DestinationPrefix.String()}})
		}
	}
	return issues, nil
}

func checkStaleRoutes(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, n := range overlayNetworks(s) {
		rs := n.RemoteSubnetRoutes
		peers := newPeerIndex(s, n)
		overlapping := overlappingRoutes(rs)
		var owned map[netip.Addr]string // nodeAddresses, built when a route looks stale
		for i, r := range rs {
			if !r.DestinationPrefix.IsValid() {
				continue
			}
			for _, sub := range n.Subnets {
				if sub.Prefix.IsValid() && sub.Prefix.Overlaps(r.DestinationPrefix) {
					issues = append(issues, Issue{Severity: finding.Fail,
						Summary:  fmt.Sprintf("RemoteSubnetRoute %s on network %s overlaps the network's own subnet %s", r.DestinationPrefix, n.Name, sub.Prefix),
						Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] DestinationPrefix", r.Index), Value: r.DestinationPrefix.String(), Note: "own subnet " + sub.Prefix.String()}},
						Subjects: []string{"network:" + n.Name, "prefix:" + r.DestinationPrefix.String()}})
				}
			}
			for _, j := range overlapping[i] {
				o := rs[j]
				issues = append(issues, Issue{Severity: finding.Fail,
					Summary: fmt.Sprintf("RemoteSubnetRoutes %s (to %s) and %s (to %s) on network %s overlap", r.DestinationPrefix, r.ProviderAddress, o.DestinationPrefix, o.ProviderAddress, n.Name),
					Evidence: []finding.Evidence{
						{File: networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] DestinationPrefix", r.Index), Value: r.DestinationPrefix.String()},
						{File: networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] DestinationPrefix", o.Index), Value: o.DestinationPrefix.String()}},
					Subjects: []string{"network:" + n.Name, "prefix:" + r.DestinationPrefix.String()}})
			}
			if s.Has(snapshot.InputKubeNodes) && peers.peer(r) == nil && !routeOwnedByAddress(s, n, r, &owned) {
				issues = append(issues, Issue{Summary: fmt.Sprintf("RemoteSubnetRoute %s (to %s) on network %s belongs to no current node: a stale route", r.DestinationPrefix, r.ProviderAddress, n.Name),
					Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] DestinationPrefix", r.Index), Value: r.DestinationPrefix.String(),
						Expected: "a pod subnet of a node in " + s.Inputs[snapshot.InputKubeNodes]}},
					Subjects: []string{"network:" + n.Name, "prefix:" + r.DestinationPrefix.String()}})
			}
		}
	}
	return issues, nil
}

// routeOwnedByAddress: Calico nodes may own several blocks; a route whose
// ProviderAddress is a current node's address is not stale.
func routeOwnedByAddress(s *snapshot.Snapshot, n *snapshot.Network, r snapshot.RemoteSubnetRoute, known *map[netip.Addr]string) bool {
	if *known == nil {
		*known = nodeAddresses(s)
	}
	_, ok := (*known)[r.ProviderAddress]
	return ok && flavorOf(s, n) == cniCalico
}

// overlappingRoutes returns, for each route i, the later routes j > i
// whose DestinationPrefix overlaps its own, in ascending order: the pairs
// a loop over every pair finds, by a sweep over the prefixes in address
// order (CIDR prefixes that overlap are nested, so an open prefix whose
// range has not ended contains every later one that starts inside it).
func overlappingRoutes(rs []snapshot.RemoteSubnetRoute) map[int][]int {
	idx := make([]int, 0, len(rs))
	for i, r := range rs {
		if r.DestinationPrefix.IsValid() {
			idx = append(idx, i)
		}
	}
	pfx := func(i int) netip.Prefix { return rs[i].DestinationPrefix.Masked() }
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := pfx(idx[a]), pfx(idx[b])
		if c := pa.Addr().Compare(pb.Addr()); c != 0 {
			return c < 0
		}
		return pa.Bits() < pb.Bits() // the container first
	})
	out := map[int][]int{}
	var open []int
	for _, i := range idx {
		p := pfx(i)
		for len(open) > 0 && !pfx(open[len(open)-1]).Contains(p.Addr()) {
			open = open[:len(open)-1]
		}
		for _, o := range open {
			a, b := min(o, i), max(o, i)
			out[a] = append(out[a], b)
		}
		open = append(open, i)
	}
	for _, l := range out {
		sort.Ints(l)
	}
	return out
}

func checkManagementIPPresent(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, n := range cniNetworks(s) {
		if !n.Knows("ManagementIP") || (strings.EqualFold(n.Type, snapshot.TypeL2Bridge) && onlyV2(n)) {
			continue // HNS V2 carries no ProviderAddress for L2Bridge: absence proves nothing
		}
		if !n.ManagementIP.IsValid() {
			issues = append(issues, Issue{Summary: fmt.Sprintf("%s network %s has no ManagementIP: the vSwitch has no address to encapsulate from", strings.ToLower(n.Type), n.Name),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "ManagementIP / Policies[ProviderAddress]", Value: "(none)"}},
				Subjects: []string{"network:" + n.Name}})
			continue
		}
		if s.Has(snapshot.InputHostAdapters) && s.AdapterWithAddr(n.ManagementIP) == nil {
			issues = append(issues, Issue{Summary: fmt.Sprintf("%s network %s has ManagementIP %s, but no host adapter holds it", strings.ToLower(n.Type), n.Name, n.ManagementIP),
				Evidence: []finding.Evidence{
					{File: n.ManagementIPFile, Object: networkObject(n), Field: n.ManagementIPField, Value: n.ManagementIP.String()},
					{File: s.Inputs[snapshot.InputHostAdapters], Field: "IP addresses", Value: adapterAddresses(s), Expected: "one of them " + n.ManagementIP.String()}},
				Subjects: []string{"network:" + n.Name, "address:" + n.ManagementIP.String()}})
		}
	}
	return issues, nil
}

func adapterAddresses(s *snapshot.Snapshot) string {
	var parts []string
	for _, a := range s.Adapters {
		for _, p := range a.Addresses {
			parts = append(parts, a.Name+" "+p.Addr().String())
		}
	}
	return strings.Join(parts, ", ")
}

// onlyV2 reports a network seen only through HNS V2 JSON.
func onlyV2(n *snapshot.Network) bool {
	for _, r := range n.Refs {
		if !strings.Contains(r.File, "v2/") {
			return false
		}
	}
	return len(n.Refs) > 0
}
