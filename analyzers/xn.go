package analyzers

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// Cross-node rules: what no single node's bundle shows, checked on the
// bundles of several nodes (Windows and Linux) analyzed together.

func init() {
	register(&Rule{
		ID: "XN-01", Title: "A VTEP address that another node also holds", Severity: finding.Fail,
		Checks:       "No node's VTEP address (Windows ManagementIP, Linux VXLAN device local address) is also an address of another node or another node's VTEP.",
		Why:          "Vagrant and some clouds give every VM the same NAT address: VXLAN sent to it stays on the sending node, and two nodes with one VTEP address collide.",
		Fix:          "Bind each node's overlay to its own underlay address: Calico VXLAN_ADAPTER / IP autodetection, flannel --iface / --public-ip; then recreate the network.",
		Sources:      []string{"https://github.com/flannel-io/flannel/pull/764", "seeds/002"},
		CheckCluster: checkSharedVTEP,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (the node's PublicIP is its VTEP); Calico IP autodetection (IPv4Address)",
			"Linux VXLAN device local address (flannel pkg/backend/vxlan/vxlan_network.go FDB entries point at it)",
		},
		Guards: []string{
			guardLatest,
			"each pair of nodes is reported once",
			"nodes without an overlay network or VXLAN device are not compared",
		},
	})
	register(&Rule{
		ID: "XN-02", Title: "Windows route to a peer that is not the peer's VTEP", Severity: finding.Fail,
		Checks:       "Each Windows node's RemoteSubnetRoute for another node's pod subnet carries that node's VTEP address (its ManagementIP or VXLAN local address as its own bundle shows it, not as annotations claim) and its VTEP MAC.",
		Why:          "Routes built from stale or wrong published data send the peer's pods' traffic elsewhere or to a MAC the peer drops.",
		Fix:          "Restart the CNI agent (flanneld / calico-node) on the Windows node after fixing what the peer publishes.",
		Sources:      []string{"reference/hns-model.md invariants OVL-005, OVL-006"},
		CheckCluster: checkWindowsRoutesAgainstPeers,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute ProviderAddress and DR MAC from the peer's lease)",
			"Calico felix/dataplane/windows/vxlan_mgr.go",
		},
		Guards: []string{
			guardLatest,
			"only routes to another analysed node whose VTEP its own bundle shows (annotations are not trusted)",
			"the DR MAC is compared only when both sides show one",
		},
	})
	register(&Rule{
		ID: "XN-03", Title: "Linux node sends a Windows node's pods to the wrong VTEP", Severity: finding.Fail,
		Checks:       "On each Linux node, the route, neighbour and FDB entry of the VXLAN device for a Windows node's pod subnet lead to that node's ManagementIP and DR MAC, and not to an address of the Linux node itself.",
		Why:          "This is the Windows overlay seen from the Linux side: an FDB entry to a wrong address (or the Linux node's own NAT address) loses every packet to the Windows pods.",
		Fix:          "Fix the Windows node's ManagementIP (OVL-01) and what it publishes (Calico IPv4Address, flannel public-ip), then restart the agent on the Linux node so it rewrites its FDB.",
		Sources:      []string{"seeds/002 (ip route on the control plane)", "reference/failure-modes.md OVL-01"},
		CheckCluster: checkLinuxFDB,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network.go handleSubnetEvents (Linux: ARP entry to the VtepMAC, FDB entry to the PublicIP, onlink route per peer subnet)",
		},
		Guards: []string{
			guardLatest,
			"only routes toward a Windows node of the analysis",
			"the VTEP and DR MAC are compared only when the Windows bundle shows them",
		},
	})
	register(&Rule{
		ID: "XN-04", Title: "VNI or VXLAN port differs between nodes", Severity: finding.Fail,
		Checks:       "Every node uses the same VNI, and every Linux VXLAN device uses UDP port 4789 when Windows nodes are in the cluster.",
		Why:          "Windows only speaks VNI 4096+ on port 4789; a Linux node on VNI 1 or port 8472 cannot exchange traffic with it.",
		Fix:          `Set "VNI": 4096 and "Port": 4789 in flannel's net-conf.json cluster-wide (Calico: VXLAN_VNI, vxlanPort), then restart the agents.`,
		Sources:      []string{"https://github.com/k3s-io/k3s/issues/9295", "https://raw.githubusercontent.com/flannel-io/flannel/v0.28.9/Documentation/backends.md"},
		CheckCluster: checkVNIAndPort,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (VNI 4096+, port 4789 on Windows)",
			"flannel Documentation/backends.md (Linux defaults: VNI 1, port 8472)",
		},
		Guards: []string{
			guardLatest,
			"nodes whose VNI is unknown are not compared",
			"the port is judged only for Linux nodes, and only when Windows nodes are in the analysis",
		},
	})
}

// Several bundles of one node (before and after a fix, or the same node
// collected twice) are times of that node, not peers: comparing them would
// make every cross-node rule find the node's own addresses "on another
// node" (XN-01 on a before/after pair). The design is the simplest that is
// correct: per-node rules run on every bundle, and their findings name the
// bundle's time (nodeLabel); cross-node rules run once, on the latest bundle
// of each node, so they compare each node only with the other nodes, never
// with itself, and describe the cluster as it was last seen. Running them
// once per time-consistent set would need the bundles of all nodes to be
// collected together, which nothing guarantees. A Result note says which
// bundles were taken as one node and which one the cross-node rules used.

// nodeBundles is one node's bundles in an analysis.
type nodeBundles struct {
	name   string               // the node, as its first bundle names it
	snaps  []*snapshot.Snapshot // input order
	latest *snapshot.Snapshot
	byTime bool // latest by collection time, else by input order
}

// collected is when a bundle was collected, by its manifest (nil when it
// does not say).
func collected(s *snapshot.Snapshot) *time.Time {
	if m := s.Manifest; m != nil {
		if m.Started != nil {
			return m.Started
		}
		return m.Finished
	}
	return nil
}

// collectedAt is collected's time, the zero time when the manifest does
// not say.
func collectedAt(s *snapshot.Snapshot) time.Time {
	if c := collected(s); c != nil {
		return *c
	}
	return time.Time{}
}

// sameNode reports two bundles of one node: the same node name, or the same
// host name (case-insensitive both; the node name is NODE_NAME in one
// collection and the host name in another). The same host name is not
// enough when both bundles name the node otherwise and differently
// (--hostname-override on clones of one image), or when a bundle's list of
// Kubernetes Nodes holds both names: those are two nodes. Inputs that name
// no node (pasted text) are never merged: nothing tells that they are one.
func sameNode(a, b *snapshot.Snapshot) bool {
	// Clones of one image share a host name (and so a derived node name)
	// but run as different Nodes: what kube-proxy runs as, or the Node
	// holding the host's address, tells them apart.
	if ca, cb := claimedNode(a), claimedNode(b); ca != "" && cb != "" && !strings.EqualFold(ca, cb) {
		return false
	}
	na, nb := a.NodeName(), b.NodeName()
	if na != "" && strings.EqualFold(na, nb) {
		return true
	}
	var ha, hb string
	if a.OS != nil {
		ha = a.OS.Hostname
	}
	if b.OS != nil {
		hb = b.OS.Hostname
	}
	if ha == "" || !strings.EqualFold(ha, hb) {
		return false
	}
	overridden := func(n, h string) bool { return n != "" && !strings.EqualFold(n, h) }
	if overridden(na, ha) && overridden(nb, hb) {
		return false
	}
	for _, s := range []*snapshot.Snapshot{a, b} {
		if hasKubeNode(s, na) && hasKubeNode(s, nb) {
			return false
		}
	}
	return true
}

// claimedNode is the Kubernetes node name a bundle's own configuration
// gives: kube-proxy's --hostname-override, else the Node that holds one of
// the host's addresses.
func claimedNode(s *snapshot.Snapshot) string {
	if s.KubeProxy != nil && s.KubeProxy.Hostname != "" {
		return s.KubeProxy.Hostname
	}
	if k := s.SelfKubeNode(); k != nil {
		return k.Name
	}
	return ""
}

func hasKubeNode(s *snapshot.Snapshot, name string) bool {
	for _, k := range s.KubeNodes {
		if name != "" && strings.EqualFold(k.Name, name) {
			return true
		}
	}
	return false
}

// groupNodes groups the snapshots by node, in the order each node first
// appears, and picks each node's latest bundle: by collection time when
// every bundle of the node has one, else the last given.
func groupNodes(snaps []*snapshot.Snapshot) []*nodeBundles {
	var groups []*nodeBundles
next:
	for _, s := range snaps {
		for _, g := range groups {
			for _, o := range g.snaps {
				if sameNode(s, o) {
					g.snaps = append(g.snaps, s)
					continue next
				}
			}
		}
		name := s.NodeName()
		if name == "" {
			name = s.Source
		}
		groups = append(groups, &nodeBundles{name: name, snaps: []*snapshot.Snapshot{s}})
	}
	for _, g := range groups {
		g.latest, g.byTime = g.snaps[len(g.snaps)-1], len(g.snaps) > 1
		for _, s := range g.snaps {
			g.byTime = g.byTime && collected(s) != nil
		}
		if g.byTime {
			for _, s := range g.snaps {
				if !collected(s).Before(*collected(g.latest)) {
					g.latest = s // ties: the later given
				}
			}
		}
	}
	return groups
}

// stamps names each bundle of a node apart: by collection time when the
// times differ, else by file name, else by position.
func (g *nodeBundles) stamps() []string {
	distinct := func(f func(int, *snapshot.Snapshot) string) []string {
		seen := map[string]bool{}
		var out []string
		for i, s := range g.snaps {
			v := f(i, s)
			if v == "" || seen[v] {
				return nil
			}
			seen[v] = true
			out = append(out, v)
		}
		return out
	}
	if out := distinct(func(_ int, s *snapshot.Snapshot) string {
		if t := collected(s); t != nil {
			return t.UTC().Format("2006-01-02 15:04Z")
		}
		return ""
	}); out != nil {
		return out
	}
	if out := distinct(func(_ int, s *snapshot.Snapshot) string { return filepath.Base(s.Source) }); out != nil {
		return out
	}
	out := make([]string, len(g.snaps))
	for i := range g.snaps {
		out[i] = fmt.Sprintf("bundle %d of %d", i+1, len(g.snaps))
	}
	return out
}

// NodeLabels is the node each snapshot's findings name: its node name (the
// input's path when it has none) and, when several inputs are bundles of
// one node, which of them (" (2026-11-21 09:00Z)" or the file name).
func NodeLabels(snaps []*snapshot.Snapshot) []string {
	labels, _, _ := nodeLabels(snaps)
	return labels
}

// nodeLabels also returns the latest bundle of each node, for the
// cross-node rules, and the notes that say which bundles were one node.
func nodeLabels(snaps []*snapshot.Snapshot) (labels []string, latest []*snapshot.Snapshot, notes []string) {
	groups := groupNodes(snaps)
	label := map[*snapshot.Snapshot]string{}
	for _, g := range groups {
		latest = append(latest, g.latest)
		if len(g.snaps) == 1 {
			label[g.snaps[0]] = g.name
			continue
		}
		stamps := g.stamps()
		var parts []string
		for i, s := range g.snaps {
			label[s] = g.name + " (" + stamps[i] + ")"
			part := s.Source
			if t := collected(s); t != nil {
				part += " " + t.UTC().Format("2006-01-02T15:04Z")
			}
			parts = append(parts, part)
		}
		order := "by collection time"
		if !g.byTime {
			order = "by input order: not every bundle has a collection time"
		}
		use := fmt.Sprintf("cross-node rules use the latest (%s, %s)", g.latest.Source, order)
		if len(groups) == 1 {
			use = "no cross-node rules: no other node"
		}
		notes = append(notes, fmt.Sprintf("%s: %d bundles of the same node (%s); %s; per-node findings are reported per bundle",
			g.name, len(g.snaps), strings.Join(parts, ", "), use))
	}
	for _, s := range snaps {
		labels = append(labels, label[s])
	}
	return labels, latest, notes
}

// nodeView is what the cross-node rules need of one node.
type nodeView struct {
	s       *snapshot.Snapshot
	name    string
	windows bool
	vtep    netip.Addr
	vtepOf  string // where the VTEP address was read
	drMAC   string
	vni     int64
	port    int64
	pods    []netip.Prefix // pod subnets, or /32s of VXLAN device addresses (Calico)
	addrs   map[netip.Addr]string
}

func views(snaps []*snapshot.Snapshot) []*nodeView {
	var out []*nodeView
	for _, s := range snaps {
		v := &nodeView{s: s, name: s.NodeName(), addrs: map[netip.Addr]string{}}
		if v.name == "" {
			v.name = s.Source
		}
		for _, a := range s.Adapters {
			for _, p := range a.Addresses {
				v.addrs[p.Addr()] = a.Name
			}
		}
		if n := cniOverlayOf(s); n != nil {
			v.windows, v.vtep, v.drMAC, v.vni, v.port = true, n.ManagementIP, n.DrMAC, netVSID(n), 4789
			v.vtepOf = n.ManagementIPFile + " " + n.ManagementIPField
			if n.VxlanPort != 0 {
				v.port = int64(n.VxlanPort)
			}
			v.pods = n.Prefixes()
		} else if s.Linux != nil {
			for _, l := range s.Linux.VXLANLinks() {
				v.vtep, v.drMAC, v.vni, v.port = l.VXLAN.Local, l.MAC, l.VXLAN.VNI, l.VXLAN.Port
				v.vtepOf = "linux " + l.Name + " local"
				for _, a := range l.Addresses {
					v.pods = append(v.pods, netip.PrefixFrom(a.Addr(), a.Addr().BitLen()))
				}
				break
			}
			for _, l := range s.Linux.Links {
				for _, a := range l.Addresses {
					v.addrs[a.Addr()] = l.Name
				}
			}
		} else {
			continue
		}
		out = append(out, v)
	}
	return out
}

func cniOverlayOf(s *snapshot.Snapshot) *snapshot.Network {
	for _, n := range overlayNetworks(s) {
		return n
	}
	return nil
}

// owner finds the node whose pod subnet holds or overlaps p.
func owner(vs []*nodeView, not *nodeView, p netip.Prefix) *nodeView {
	for _, v := range vs {
		if v == not {
			continue
		}
		for _, q := range v.pods {
			if q.Overlaps(p) {
				return v
			}
		}
	}
	return nil
}

func checkSharedVTEP(snaps []*snapshot.Snapshot) ([]Issue, error) {
	vs := views(snaps)
	var issues []Issue
	for i, a := range vs {
		if !a.vtep.IsValid() {
			continue
		}
		for j, b := range vs {
			if i == j {
				continue
			}
			where, held := b.addrs[a.vtep]
			if b.vtep == a.vtep {
				if j < i {
					continue // reported once per pair
				}
				where, held = "its VTEP", true
			}
			if !held {
				continue
			}
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("%s's VTEP address %s is also an address of %s (%s): VXLAN for %s sent there stays on %s",
					a.name, a.vtep, b.name, where, a.name, b.name),
				Evidence: []finding.Evidence{
					{File: a.s.Source, Object: "node " + a.name, Field: a.vtepOf, Value: a.vtep.String()},
					{File: b.s.Source, Object: "node " + b.name, Field: "address of " + where, Value: a.vtep.String()}},
				Subjects: []string{"address:" + a.vtep.String(), "node:" + a.name, "node:" + b.name}})
		}
	}
	return issues, nil
}

func checkWindowsRoutesAgainstPeers(snaps []*snapshot.Snapshot) ([]Issue, error) {
	vs := views(snaps)
	var issues []Issue
	for _, w := range vs {
		n := cniOverlayOf(w.s)
		if n == nil {
			continue
		}
		for _, r := range n.RemoteSubnetRoutes {
			p := owner(vs, w, r.DestinationPrefix)
			if p == nil || !p.vtep.IsValid() {
				continue
			}
			ev := finding.Evidence{File: w.s.Source + ": " + networkFile(n), Object: networkObject(n), Field: fmt.Sprintf("Policies[%d] RemoteSubnetRoute %s", r.Index, r.DestinationPrefix)}
			if r.ProviderAddress != p.vtep {
				e := ev
				e.Field += " ProviderAddress"
				e.Value, e.Expected = r.ProviderAddress.String(), p.vtep.String()
				issues = append(issues, Issue{Summary: fmt.Sprintf("%s sends %s's pods (%s) to %s, but %s's VTEP is %s", w.name, p.name, r.DestinationPrefix, r.ProviderAddress, p.name, p.vtep),
					Evidence: []finding.Evidence{e, {File: p.s.Source, Object: "node " + p.name, Field: p.vtepOf, Value: p.vtep.String()}},
					Subjects: []string{"address:" + r.ProviderAddress.String(), "node:" + p.name}})
			}
			if p.drMAC != "" && r.DrMAC != "" && r.DrMAC != p.drMAC {
				e := ev
				e.Field += " DistributedRouterMacAddress"
				e.Value, e.Expected = r.DrMAC, p.drMAC
				issues = append(issues, Issue{Summary: fmt.Sprintf("%s addresses %s's pods to MAC %s, but %s's VTEP MAC is %s", w.name, p.name, r.DrMAC, p.name, p.drMAC),
					Evidence: []finding.Evidence{e}, Subjects: []string{"node:" + p.name}})
			}
		}
	}
	return issues, nil
}

func checkLinuxFDB(snaps []*snapshot.Snapshot) ([]Issue, error) {
	vs := views(snaps)
	var issues []Issue
	for _, l := range vs {
		if l.windows || l.s.Linux == nil {
			continue
		}
		for _, vr := range l.s.Linux.VXLANRoutes() {
			r, mac, dst := vr.LinuxRoute, vr.MAC, vr.VTEP
			w := owner(vs, l, r.Prefix())
			if w == nil || !w.windows {
				continue
			}
			routeEv := finding.Evidence{File: l.s.Source, Object: "node " + l.name, Field: "route " + r.Dst + " via " + r.Gateway.String() + " dev " + r.Dev}
			switch {
			case mac == "" || !dst.IsValid():
				issues = append(issues, Issue{Summary: fmt.Sprintf("%s routes %s's pods (%s) into %s, but has no neighbour or FDB entry to reach %s's VTEP", l.name, w.name, r.Dst, r.Dev, w.name),
					Evidence: []finding.Evidence{routeEv}, Subjects: []string{"node:" + w.name}})
				continue
			case l.addrs[dst] != "":
				issues = append(issues, Issue{Summary: fmt.Sprintf("%s sends VXLAN for %s's pods (%s) to %s, which is %s's own address (%s): the packets never leave %s",
					l.name, w.name, r.Dst, dst, l.name, l.addrs[dst], l.name),
					Evidence: []finding.Evidence{routeEv, {File: l.s.Source, Object: "node " + l.name, Field: "fdb " + mac + " dev " + r.Dev, Value: dst.String(), Expected: "a VTEP of " + w.name + " on the underlay"},
						{File: l.s.Source, Object: "node " + l.name, Field: "address of " + l.addrs[dst], Value: dst.String()}},
					Subjects: []string{"address:" + dst.String(), "node:" + w.name}})
			case w.vtep.IsValid() && dst != w.vtep:
				issues = append(issues, Issue{Summary: fmt.Sprintf("%s sends VXLAN for %s's pods (%s) to %s, but %s's ManagementIP is %s", l.name, w.name, r.Dst, dst, w.name, w.vtep),
					Evidence: []finding.Evidence{routeEv, {File: l.s.Source, Object: "node " + l.name, Field: "fdb " + mac + " dev " + r.Dev, Value: dst.String(), Expected: w.vtep.String()}},
					Subjects: []string{"address:" + dst.String(), "node:" + w.name}})
			}
			if w.drMAC != "" && mac != "" && mac != w.drMAC {
				issues = append(issues, Issue{Summary: fmt.Sprintf("%s addresses %s's pods to MAC %s, but %s's DR MAC is %s", l.name, w.name, mac, w.name, w.drMAC),
					Evidence: []finding.Evidence{{File: l.s.Source, Object: "node " + l.name, Field: "neighbour " + r.Gateway.String() + " dev " + r.Dev, Value: mac, Expected: w.drMAC}},
					Subjects: []string{"node:" + w.name}})
			}
		}
	}
	return issues, nil
}

func checkVNIAndPort(snaps []*snapshot.Snapshot) ([]Issue, error) {
	vs := views(snaps)
	byVNI := map[int64][]string{}
	windows := false
	var issues []Issue
	for _, v := range vs {
		if v.vni != 0 {
			byVNI[v.vni] = append(byVNI[v.vni], v.name)
		}
		windows = windows || v.windows
	}
	if len(byVNI) > 1 {
		var parts []string
		var ev []finding.Evidence
		vnis := make([]int64, 0, len(byVNI))
		for vni := range byVNI {
			vnis = append(vnis, vni)
		}
		sort.Slice(vnis, func(i, j int) bool { return vnis[i] < vnis[j] })
		for _, vni := range vnis {
			parts = append(parts, fmt.Sprintf("VNI %d on %s", vni, strings.Join(byVNI[vni], ", ")))
			ev = append(ev, finding.Evidence{Field: "VNI", Value: strconv.FormatInt(vni, 10), Note: strings.Join(byVNI[vni], ", ")})
		}
		issues = append(issues, Issue{Summary: "the nodes use different VNIs: " + strings.Join(parts, "; "), Evidence: ev})
	}
	if windows {
		for _, v := range vs {
			if !v.windows && v.port != 0 && v.port != 4789 {
				issues = append(issues, Issue{Summary: fmt.Sprintf("%s's VXLAN device uses UDP port %d; Windows nodes only use 4789", v.name, v.port),
					Evidence: []finding.Evidence{{File: v.s.Source, Object: "node " + v.name, Field: "VXLAN port", Value: strconv.FormatInt(v.port, 10), Expected: "4789"}},
					Subjects: []string{"node:" + v.name}})
			}
		}
	}
	return issues, nil
}
