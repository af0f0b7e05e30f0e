package snapshot

import (
	"net/netip"
	"strings"
)

// InternalIP is the node's first InternalIP, if any.
func (n *KubeNode) InternalIP() netip.Addr {
	if len(n.InternalIPs) > 0 {
		return n.InternalIPs[0]
	}
	return netip.Addr{}
}

// HasAddr reports whether a is one of the node's addresses.
func (n *KubeNode) HasAddr(a netip.Addr) bool {
	for _, x := range append(append([]netip.Addr{}, n.InternalIPs...), n.ExternalIPs...) {
		if x == a {
			return true
		}
	}
	return false
}

// FlannelPublicIP is the address flannel registered for the node's VTEP.
func (n *KubeNode) FlannelPublicIP() netip.Addr {
	return ParseAddr(n.Annotations.Get(AnnotationFlannelPublicIP))
}

// CalicoVXLANTunnelAddr is the address of the node's Calico VXLAN tunnel
// device: the first host address of one of its affine IPAM blocks.
func (n *KubeNode) CalicoVXLANTunnelAddr() netip.Addr {
	return ParseAddr(n.Annotations.Get(AnnotationCalicoVXLANAddr))
}

// CalicoNodeIP is the node address Calico autodetected (IPv4Address).
func (n *KubeNode) CalicoNodeIP() netip.Addr {
	return ParseAddr(n.Annotations.Get(AnnotationCalicoIPv4Address))
}

// IsWindows reports a Windows node.
func (n *KubeNode) IsWindows() bool { return strings.EqualFold(n.OS, "windows") }

// EndpointSlice is the part of a discovery.k8s.io/v1 EndpointSlice the
// rules use: which Service it serves and its endpoints' readiness.
type EndpointSlice struct {
	Namespace string          `json:"namespace,omitempty"`
	Service   string          `json:"service,omitempty"` // label kubernetes.io/service-name
	Endpoints []SliceEndpoint `json:"endpoints,omitempty"`
	// Ports are the slice's target ports ("TCP/8080"): a pod lacking a
	// named port of its Service sits in a slice without it.
	Ports []string `json:"ports,omitempty"`
}

// SliceEndpoint is one backend of an EndpointSlice.
type SliceEndpoint struct {
	Addresses []netip.Addr `json:"addresses,omitempty"`
	Ready     bool         `json:"ready"`
	NodeName  string       `json:"nodeName,omitempty"`
	Hinted    bool         `json:"hinted,omitempty"` // topology hints: proxies may use a subset
}

// SlicesOf returns the EndpointSlices of one Service, through an index
// built on first use: rules look up every Service's slices, and a large
// cluster has thousands of each.
func (s *Snapshot) SlicesOf(namespace, service string) []*EndpointSlice {
	if s.slicesByService == nil {
		s.slicesByService = make(map[string][]*EndpointSlice, len(s.EndpointSlices))
		for _, es := range s.EndpointSlices {
			k := es.Namespace + "/" + es.Service
			s.slicesByService[k] = append(s.slicesByService[k], es)
		}
	}
	return s.slicesByService[namespace+"/"+service]
}

// ReadyEndpoints counts the ready backends in one Service's slices and
// names the nodes they run on.
func ReadyEndpoints(slices []*EndpointSlice) (ready int, nodes []string) {
	seen := map[string]bool{}
	for _, es := range slices {
		for _, e := range es.Endpoints {
			if !e.Ready {
				continue
			}
			ready++
			if e.NodeName != "" && !seen[e.NodeName] {
				seen[e.NodeName] = true
				nodes = append(nodes, e.NodeName)
			}
		}
	}
	return ready, nodes
}

// ReadyAddresses is the set of ready backend addresses in one Service's
// slices, and whether any of its endpoints carries topology hints.
func ReadyAddresses(slices []*EndpointSlice) (ready map[netip.Addr]bool, hinted bool) {
	return ReadyAddressesFor(slices, "")
}

// ReadyAddressesFor is ReadyAddresses of the slices that serve a target
// port ("TCP/8080"; "" for all, and slices that do not say their ports
// serve every port).
func ReadyAddressesFor(slices []*EndpointSlice, port string) (ready map[netip.Addr]bool, hinted bool) {
	ready = map[netip.Addr]bool{}
	for _, es := range slices {
		if port != "" && len(es.Ports) > 0 && !hasPort(es.Ports, port) {
			continue
		}
		for _, e := range es.Endpoints {
			hinted = hinted || e.Hinted
			if e.Ready {
				for _, a := range e.Addresses {
					ready[a] = true
				}
			}
		}
	}
	return ready, hinted
}

func hasPort(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
