package snapshot

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// Fact is one derived node fact and where it came from. Findings quote the
// source so that a reader can check the premise.
type Fact struct {
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Known reports whether the fact could be derived.
func (f Fact) Known() bool { return f.Value != "" }

// Addr parses the fact as an address.
func (f Fact) Addr() netip.Addr { return ParseAddr(f.Value) }

// Prefix parses the fact as a CIDR.
func (f Fact) Prefix() netip.Prefix { return ParsePrefix(f.Value) }

// NodeFacts are the facts rules need about the node. Each is derived by the
// first source in its precedence list that has it:
//
//	Name         manifest.json node → host/os.json hostname → the k8s Node
//	             whose InternalIP is on a host adapter → the k8s Node whose
//	             InternalIP is the CNI network's ManagementIP → the k8s Node
//	             whose podCIDR is the CNI network's subnet
//	NetworkName  kube-proxy --network-name → the only Overlay/L2Bridge
//	             network that is not a bootstrap network → of several, the one
//	             whose subnet is the node's podCIDR
//	NodeIP       the k8s Node's InternalIP → the CNI network's ManagementIP
//	PodCIDR      the CNI network's first subnet (what pods really get; Calico
//	             ignores spec.podCIDR) → the k8s Node's spec.podCIDR
//	ClusterCIDR  kube-proxy --cluster-cidr
//	ServiceCIDR  the NeedEncap route policy (ROUTE/SDNRoute) most local
//	             endpoints carry: CNIs program the service CIDR that way
//	DNSServiceIP the kube-system/kube-dns Service's ClusterIP → the DNS
//	             server most local endpoints are given
//	VNI          the CNI network's subnet VSID → the most common
//	             RemoteSubnetRoute IsolationId
//	SourceVIP    kube-proxy --source-vip
//	DSR          kube-proxy --enable-dsr
type NodeFacts struct {
	Name         Fact `json:"name,omitzero"`
	NetworkName  Fact `json:"networkName,omitzero"`
	NodeIP       Fact `json:"nodeIP,omitzero"`
	PodCIDR      Fact `json:"podCIDR,omitzero"`
	ClusterCIDR  Fact `json:"clusterCIDR,omitzero"`
	ServiceCIDR  Fact `json:"serviceCIDR,omitzero"`
	DNSServiceIP Fact `json:"dnsServiceIP,omitzero"`
	VNI          Fact `json:"vni,omitzero"`
	SourceVIP    Fact `json:"sourceVIP,omitzero"`
	DSR          Fact `json:"dsr,omitzero"`
}

// CNINetwork is the HNS network the node's pods use (Facts.NetworkName).
func (s *Snapshot) CNINetwork() *Network {
	name := s.Facts.NetworkName.Value
	if name == "" {
		return nil
	}
	for _, n := range s.Networks {
		if n.Name == name {
			return n
		}
	}
	for _, n := range s.Networks {
		if strings.EqualFold(n.Name, name) {
			return n
		}
	}
	return nil
}

// SelfKubeNode is this node's Kubernetes Node object, if the bundle has it.
func (s *Snapshot) SelfKubeNode() *KubeNode {
	if s.selfIndexed {
		return s.self
	}
	return s.findSelfKubeNode()
}

// Derive computes the node facts from what the parsers filled in and
// indexes the node's own Kubernetes Node: the last step of loading.
func (s *Snapshot) Derive() {
	s.deriveFacts()
	s.indexSelf()
}

// indexSelf remembers SelfKubeNode once the facts are final: rules ask for
// it per peer, and a 1,000-node cluster made that a quadratic scan.
func (s *Snapshot) indexSelf() {
	s.self, s.selfIndexed = s.findSelfKubeNode(), true
}

func (s *Snapshot) findSelfKubeNode() *KubeNode { return s.kubeNodeNamed(s.Facts.Name.Value) }

// kubeNodeNamed is the Kubernetes Node of that name (case-insensitive:
// Windows spells host names in capitals), or nil.
func (s *Snapshot) kubeNodeNamed(name string) *KubeNode {
	for _, n := range s.KubeNodes {
		if name != "" && strings.EqualFold(n.Name, name) {
			return n
		}
	}
	return nil
}

// isBootstrapNetwork recognises the placeholder networks Calico and the
// flannel scripts create only to bring up the vSwitch: named External, on
// 192.168.255.0/30 with VSID 9999.
func isBootstrapNetwork(n *Network) bool {
	if strings.EqualFold(n.Name, "External") {
		return true
	}
	for _, s := range n.Subnets {
		if s.VSID == 9999 || s.Prefix == netip.MustParsePrefix("192.168.255.0/30") {
			return true
		}
	}
	return false
}

func (s *Snapshot) deriveFacts() {
	f := &s.Facts
	kp := s.KubeProxy

	// Name.
	switch {
	case s.Manifest != nil && s.Manifest.Node != "":
		f.Name = Fact{s.Manifest.Node, "manifest.json node"}
	case s.OS != nil && s.OS.Hostname != "":
		f.Name = Fact{s.OS.Hostname, s.OS.HostnameFrom}
	case kp != nil && kp.Hostname != "":
		f.Name = Fact{kp.Hostname, kp.Source + " --hostname-override"}
	}
	// A name that is no Kubernetes Node in the bundle: where the cloud
	// names the Node (ip-10-0-1-5.ec2.internal) and not Windows
	// (EC2AMAZ-…), the rules must look up the Node this host is. The Node
	// holding one of the host's addresses says it best; else kube-proxy's
	// --hostname-override, when it names a Node (a wrong override on a
	// host whose address names another Node is HOST-04's finding, not the
	// node's name).
	if f.Name.Known() && len(s.KubeNodes) > 0 && s.kubeNodeNamed(f.Name.Value) == nil {
		was := fmt.Sprintf("%s says %s, no Node of that name", f.Name.Source, f.Name.Value)
		if n, ip, ad := s.kubeNodeByAddress(); n != nil {
			f.Name = Fact{n.Name, fmt.Sprintf("k8s/nodes.json: InternalIP %s is on host adapter %s (%s)", ip, ad, was)}
		} else if kp != nil && kp.Hostname != "" && s.kubeNodeNamed(kp.Hostname) != nil {
			f.Name = Fact{kp.Hostname, fmt.Sprintf("%s --hostname-override, the Kubernetes Node of that name (%s)", kp.Source, was)}
		}
	}

	// NetworkName.
	if kp != nil && kp.NetworkName != "" {
		f.NetworkName = Fact{kp.NetworkName, kp.Source + " --network-name"}
	}
	var candidates []*Network
	for _, n := range s.Networks {
		if n.IsOverlayOrBridge() && !isBootstrapNetwork(n) {
			candidates = append(candidates, n)
		}
	}

	if !f.Name.Known() {
		s.nameFromKube(candidates)
	}
	self := s.SelfKubeNode()

	if !f.NetworkName.Known() {
		switch {
		case len(candidates) == 1:
			f.NetworkName = Fact{candidates[0].Name, refString(candidates[0].Refs[0]) + ": the only Overlay/L2Bridge network"}
		case len(candidates) > 1 && self != nil && len(self.PodCIDRs) > 0:
			for _, n := range candidates {
				for _, sub := range n.Subnets {
					if sub.Prefix == self.PodCIDRs[0] {
						f.NetworkName = Fact{n.Name, refString(n.Refs[0]) + ": subnet is the node's podCIDR"}
					}
				}
			}
		}
	}
	cni := s.CNINetwork()

	// NodeIP and PodCIDR.
	if self != nil && self.InternalIP().IsValid() {
		f.NodeIP = Fact{self.InternalIP().String(), "k8s/nodes.json " + self.Name + " InternalIP"}
	} else if cni != nil && cni.ManagementIP.IsValid() {
		f.NodeIP = Fact{cni.ManagementIP.String(), cni.ManagementIPFile + " " + cni.ManagementIPField}
	}
	if cni != nil && len(cni.Subnets) > 0 && cni.Subnets[0].Prefix.IsValid() {
		f.PodCIDR = Fact{cni.Subnets[0].Prefix.String(), refString(cni.Refs[0]) + " Subnets[0]"}
	} else if self != nil && len(self.PodCIDRs) > 0 {
		f.PodCIDR = Fact{self.PodCIDRs[0].String(), "k8s/nodes.json " + self.Name + " spec.podCIDR"}
	}

	if kp != nil && kp.ClusterCIDR != "" {
		f.ClusterCIDR = Fact{kp.ClusterCIDR, kp.Source + " --cluster-cidr"}
	}
	if kp != nil && kp.SourceVIP != "" {
		f.SourceVIP = Fact{kp.SourceVIP, kp.Source + " --source-vip"}
	}
	if kp != nil {
		if _, set := kp.Flags["enable-dsr"]; set {
			f.DSR = Fact{strconv.FormatBool(kp.EnableDSR), kp.Source + " --enable-dsr"}
		}
	}

	// ServiceCIDR and DNS from local endpoints, by majority.
	routes, dns := map[string]int{}, map[string]int{}
	var epFile string
	for _, e := range s.Endpoints {
		if e.IsRemote {
			continue
		}
		epFile = e.Refs[0].File
		for _, r := range e.Routes {
			if p := ParsePrefix(r.DestinationPrefix); r.NeedEncap && p.IsValid() && p.Bits() < p.Addr().BitLen() {
				routes[p.String()]++
			}
		}
		if len(e.DNSServers) > 0 {
			dns[e.DNSServers[0]]++
		}
	}
	if v := mostCommon(routes); v != "" {
		f.ServiceCIDR = Fact{v, epFile + " endpoint ROUTE/SDNRoute policy with NeedEncap"}
	}
	for _, svc := range s.Services {
		if svc.Namespace == "kube-system" && svc.Name == "kube-dns" && len(svc.ClusterIPs) > 0 && svc.ClusterIPs[0] != "None" {
			f.DNSServiceIP = Fact{svc.ClusterIPs[0], "k8s/services.json kube-system/kube-dns clusterIP"}
		}
	}
	if v := mostCommon(dns); v != "" && !f.DNSServiceIP.Known() {
		f.DNSServiceIP = Fact{v, epFile + " endpoint DNSServerList"}
	}

	// VNI.
	if cni != nil {
		for _, sub := range cni.Subnets {
			if sub.VSID != 0 {
				f.VNI = Fact{strconv.FormatInt(sub.VSID, 10), refString(cni.Refs[0]) + " Subnets VSID"}
				break
			}
		}
		if !f.VNI.Known() {
			ids := map[string]int{}
			for _, r := range cni.RemoteSubnetRoutes {
				if r.IsolationID != 0 {
					ids[strconv.FormatInt(r.IsolationID, 10)]++
				}
			}
			if v := mostCommon(ids); v != "" {
				f.VNI = Fact{v, refString(cni.Refs[0]) + " RemoteSubnetRoute IsolationId"}
			}
		}
	}
}

// nameFromKube finds this node among the k8s Nodes when nothing names it.
// kubeNodeByAddress is the first Kubernetes Node with an InternalIP on one
// of the host's adapters, that address and the adapter's name.
func (s *Snapshot) kubeNodeByAddress() (*KubeNode, netip.Addr, string) {
	for _, n := range s.KubeNodes {
		for _, ip := range n.InternalIPs {
			if ad := s.AdapterWithAddr(ip); ad != nil {
				return n, ip, ad.Name
			}
		}
	}
	return nil, netip.Addr{}, ""
}

func (s *Snapshot) nameFromKube(candidates []*Network) {
	f := &s.Facts
	if n, ip, ad := s.kubeNodeByAddress(); n != nil {
		f.Name = Fact{n.Name, "k8s/nodes.json: InternalIP " + ip.String() + " is on host adapter " + ad}
		return
	}
	for _, net := range candidates {
		for _, n := range s.KubeNodes {
			if net.ManagementIP.IsValid() && n.HasAddr(net.ManagementIP) {
				f.Name = Fact{n.Name, "k8s/nodes.json: address is network " + net.Name + "'s ManagementIP"}
				return
			}
			for _, sub := range net.Subnets {
				for _, p := range n.PodCIDRs {
					if sub.Prefix.IsValid() && p == sub.Prefix {
						f.Name = Fact{n.Name, "k8s/nodes.json: podCIDR is network " + net.Name + "'s subnet"}
						return
					}
				}
			}
		}
	}
}

func mostCommon(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic on ties
	best, bestN := "", 0
	for _, k := range keys {
		if counts[k] > bestN {
			best, bestN = k, counts[k]
		}
	}
	return best
}

func refString(r Ref) string {
	return r.File + "[" + strconv.Itoa(r.Index) + "]"
}

// RefString formats a reference as file[index].
func RefString(r Ref) string { return refString(r) }
