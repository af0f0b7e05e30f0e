package analyzers

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// The SourceVIP of a load balancer, as kube-proxy (pkg/proxy/winkernel,
// syncProxyRules) chooses it on an overlay network: one value per Service
// port, used for all of its load balancers (ClusterIP, NodePort, each
// externalIP and ingress IP): --source-vip, or the node IP when a remote
// backend is a node IP or an address no RemoteSubnetRoute covers. DSR does
// not change it. On other network types kube-proxy never assigns its
// source VIP, so load balancers get an empty SourceVIP there.

// nodeAddrs are the addresses this node owns, each with where it was read.
// kube-proxy's node IP is one of them: on overlay it refuses to start
// unless a host interface holds it (it needs that interface's MAC).
type nodeAddrs struct {
	from  map[netip.Addr]addrSource
	order []netip.Addr
	// solid: known from the host adapters, the Kubernetes Node or
	// kube-proxy's --bind-address. Else the network's ManagementIP is all
	// there is, and kube-proxy's node IP (from the Node object or
	// --bind-address) may be another address.
	solid bool
	// mgmtOnly: the only address is a ManagementIP that OVL-01 accepts.
	mgmtOnly bool
	// disputed names the OVL-01 finding when the only source is a
	// ManagementIP that OVL-01 reports as wrong: kube-proxy's node IP is
	// then not known, and conclusions built on the guess would contradict
	// OVL-01.
	disputed string
	// macs are the host adapters' MAC addresses: kube-proxy's hostMac, which
	// it gives the source VIP and the Service VIP endpoints, is one of them.
	macs map[string]bool
}

// addrSource is where an address was read: a file and what in it.
type addrSource struct{ file, object, field string }

func (s addrSource) String() string {
	return strings.Join(slices.DeleteFunc([]string{s.file, s.object, s.field}, func(x string) bool { return x == "" }), " ")
}

func (a *nodeAddrs) add(ip netip.Addr, src addrSource) {
	if !ip.IsValid() {
		return
	}
	if _, seen := a.from[ip]; seen {
		return
	}
	a.from[ip] = src
	a.order = append(a.order, ip)
}

func (a nodeAddrs) has(ip netip.Addr) bool { _, ok := a.from[ip]; return ok }

// describe lists the addresses with their sources, for evidence.
func (a nodeAddrs) describe(max int) string {
	var parts []string
	for _, ip := range a.order {
		if len(parts) == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(a.order)-max))
			break
		}
		parts = append(parts, ip.String()+" ("+a.from[ip].String()+")")
	}
	return orNone(parts)
}

// ownAddresses collects this node's addresses for network n.
func ownAddresses(s *snapshot.Snapshot, n *snapshot.Network) nodeAddrs {
	a := nodeAddrs{from: map[netip.Addr]addrSource{}, macs: map[string]bool{}}
	adapters := s.Inputs[snapshot.InputHostAdapters]
	for _, ad := range s.Adapters {
		for _, p := range ad.Addresses {
			if p.Addr().IsLoopback() || p.Addr().IsLinkLocalUnicast() {
				continue
			}
			a.add(p.Addr(), addrSource{adapters, "adapter " + quote(ad.Name), "IPAddress"})
			a.solid = true
		}
		if ad.MAC != "" {
			a.macs[snapshot.NormalizeMAC(ad.MAC)] = true
		}
	}
	if self := s.SelfKubeNode(); self != nil {
		for _, ip := range self.InternalIPs {
			a.add(ip, addrSource{s.Inputs[snapshot.InputKubeNodes], "node " + self.Name, "status.addresses[InternalIP]"})
			a.solid = true
		}
	}
	if kp := s.KubeProxy; kp != nil {
		if b := parseFactAddr(kp.Flags["bind-address"]); b.IsValid() && !b.IsUnspecified() {
			a.add(b, addrSource{kp.Source, "", "--bind-address"})
			a.solid = true
		}
	}
	if n == nil || !n.ManagementIP.IsValid() {
		return a
	}
	src := addrSource{n.ManagementIPFile, networkObject(n), n.ManagementIPField}
	if _, wrong := managementIPIssue(s, n); wrong {
		a.add(n.ManagementIP, addrSource{src.file, src.object, src.field + ", which OVL-01 reports as wrong"})
		if !a.solid {
			a.disputed = fmt.Sprintf("this node's address is known here only from network %s's ManagementIP %s, which OVL-01 reports as wrong",
				n.Name, n.ManagementIP)
		}
		return a
	}
	a.add(n.ManagementIP, src)
	a.mgmtOnly = !a.solid
	return a
}

// sourceKind is what a load balancer's SourceVIP is to kube-proxy.
type sourceKind int

const (
	sourceUnknown    sourceKind = iota // not decidable without a trustworthy node address
	sourcePod                          // the configured --source-vip
	sourceNode                         // the node IP
	sourceStale                        // neither: not what this kube-proxy would set
	sourceMaybeStale                   // neither --source-vip nor the ManagementIP, the only node address known
)

// sourceVIPs decides what a SourceVIP is on overlay network n.
type sourceVIPs struct {
	n      *snapshot.Network
	own    nodeAddrs
	podVIP netip.Addr // kube-proxy --source-vip, when the bundle has it
	podSrc string
	// cluster is the cluster CIDR (kube-proxy --cluster-cidr).
	cluster netip.Prefix
}

func newSourceVIPs(s *snapshot.Snapshot, n *snapshot.Network) sourceVIPs {
	v := sourceVIPs{n: n, own: ownAddresses(s, n), cluster: s.Facts.ClusterCIDR.Prefix()}
	if a := s.Facts.SourceVIP.Addr(); a.IsValid() {
		v.podVIP, v.podSrc = a, s.Facts.SourceVIP.Source
	}
	return v
}

func (v sourceVIPs) kind(src netip.Addr) sourceKind {
	switch {
	case v.podVIP.IsValid() && src == v.podVIP:
		return sourcePod
	case v.own.has(src):
		return sourceNode
	case !v.podVIP.IsValid() && v.n.ContainsAddr(src):
		// Without kube-proxy's flags: the source VIP is an address of the
		// network's pod subnet (HNS refuses its endpoint elsewhere).
		return sourcePod
	case v.own.solid, v.cluster.IsValid() && v.cluster.Contains(src):
		// A pod-network address outside this node's subnet is no node IP.
		return sourceStale
	case v.own.mgmtOnly:
		return sourceMaybeStale
	}
	return sourceUnknown
}

// expected says what kube-proxy would have set, with the sources.
func (v sourceVIPs) expected() string {
	node := "an address of this node: " + v.own.describe(4)
	if v.podVIP.IsValid() {
		return fmt.Sprintf("kube-proxy's --source-vip %s (%s) or %s", v.podVIP, v.podSrc, node)
	}
	return fmt.Sprintf("an address of pod subnet %s (kube-proxy's source VIP; its flags are not in the bundle) or %s", subnetsOf(v.n), node)
}

// staleSourceVIPIssues groups the load balancers whose SourceVIP kube-proxy
// would not have set, one issue per SourceVIP.
func (v sourceVIPs) staleIssues(stale map[netip.Addr][]*snapshot.LoadBalancer, order []netip.Addr, maybe bool) []Issue {
	var issues []Issue
	for _, src := range order {
		lbs := stale[src]
		var names []string
		var ev []finding.Evidence
		for _, lb := range lbs {
			names = append(names, lb.ID+" ("+lbFrontend(lb)+")")
			if len(ev) < 20 {
				ev = append(ev, finding.Evidence{File: lb.Ref.File, Object: "load balancer " + lb.ID, Field: "SourceVIP", Value: src.String(),
					Expected: v.expected(), Note: "frontend " + lbFrontend(lb)})
			}
		}
		if v.podVIP.IsValid() {
			ev = append(ev, finding.Evidence{File: sourceFile(v.podSrc), Field: "--source-vip", Value: v.podVIP.String(), Note: "kube-proxy's pod source VIP"})
		}
		for i, ip := range v.own.order {
			if i == 4 {
				break
			}
			src := v.own.from[ip]
			ev = append(ev, finding.Evidence{File: src.file, Object: src.object, Field: src.field, Value: ip.String(), Note: "an address of this node (kube-proxy's node IP, its other SourceVIP, is one of them)"})
		}
		var what string
		if v.podVIP.IsValid() {
			what = fmt.Sprintf("neither kube-proxy's --source-vip %s nor an address of this node", v.podVIP)
		} else {
			what = fmt.Sprintf("neither in pod subnet %s (where the source VIP must be) nor an address of this node", subnetsOf(v.n))
		}
		verdict, sev := "stale (from an earlier --source-vip or node address, or another agent), and replies to traffic SNATed to it have nowhere to go", finding.Severity(0)
		if maybe {
			what = strings.Replace(what, "an address of this node", "the network's ManagementIP "+v.n.ManagementIP.String(), 1)
			verdict = "stale unless it is kube-proxy's node IP, which the bundle does not show (no host adapters, Kubernetes Node or --bind-address)"
			sev = finding.Warn
		}
		issues = append(issues, Issue{
			Severity: sev,
			Summary: fmt.Sprintf("%d load balancer(s) have SourceVIP %s, %s: %s: %s",
				len(lbs), src, what, verdict, strings.Join(firstN(names, 5), "; ")),
			Evidence:    ev,
			Remediation: "Restart kube-proxy: it deletes every load balancer at start and recreates them with its --source-vip or the node IP. If they come back, check that only one kube-proxy runs and that its --source-vip is the address of the source VIP endpoint in the pod subnet.",
			Subjects:    []string{"address:" + src.String()},
		})
	}
	return issues
}

// sourceFile is the file part of a fact's source ("file --flag").
func sourceFile(src string) string {
	if i := strings.Index(src, " "); i > 0 {
		return src[:i]
	}
	return src
}

// lbFrontend names what a load balancer serves: its VIPs or, without one,
// the node port (kube-proxy's NodePort load balancers have no VIP).
func lbFrontend(lb *snapshot.LoadBalancer) string {
	var ports []string
	for _, pm := range lb.PortMappings {
		ports = append(ports, fmt.Sprintf("%s/%d", protoName(pm.Protocol), pm.ExternalPort))
	}
	p := strings.Join(ports, ",")
	if len(lb.FrontendVIPs) == 0 {
		if p == "" {
			return "no VIP"
		}
		return "node port " + p
	}
	if p == "" {
		return strings.Join(lb.FrontendVIPs, ",")
	}
	return strings.Join(lb.FrontendVIPs, ",") + " " + p
}
