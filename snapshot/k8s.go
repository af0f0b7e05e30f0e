package snapshot

import (
	"net/netip"
	"strconv"
	"strings"
)

// ParseKubeNodes parses a NodeList (kubectl get nodes -o json), a single Node
// or a bare array of Nodes.
func ParseKubeNodes(data []byte) ([]*KubeNode, error) {
	return parseEach(data, func(o obj, _ int) *KubeNode { return kubeNodeOf(o) })
}

func kubeNodeOf(o obj) *KubeNode {
	meta, spec, status := o.child("metadata"), o.child("spec"), o.child("status")
	n := &KubeNode{Name: meta.str("name"), Annotations: map[string]string{}}
	for k, val := range meta.child("annotations") {
		n.Annotations[k] = asString(val)
	}
	n.OS = meta.child("labels").str("kubernetes.io/os", "beta.kubernetes.io/os")
	if n.OS == "" {
		n.OS = status.child("nodeInfo").str("operatingSystem")
	}
	cidrs := spec.strs("podCIDRs")
	if len(cidrs) == 0 {
		cidrs = spec.strs("podCIDR")
	}
	for _, c := range cidrs {
		if p := parsePrefix(c); p.IsValid() {
			n.PodCIDRs = append(n.PodCIDRs, p)
		}
	}
	for _, a := range status.list("addresses") {
		addr := parseAddr(a.str("address"))
		if !addr.IsValid() {
			continue
		}
		switch a.str("type") {
		case "InternalIP":
			n.InternalIPs = append(n.InternalIPs, addr)
		case "ExternalIP":
			n.ExternalIPs = append(n.ExternalIPs, addr)
		}
	}
	for _, c := range status.list("conditions") {
		if c.str("type") == "Ready" {
			n.Ready = strings.EqualFold(c.str("status"), "True")
		}
	}
	return n
}

// ParseServices parses a ServiceList.
func ParseServices(data []byte) ([]*Service, error) {
	return parseEach(data, func(o obj, _ int) *Service { return serviceOf(o) })
}

func serviceOf(o obj) *Service {
	meta, spec := o.child("metadata"), o.child("spec")
	s := &Service{
		Namespace:             meta.str("namespace"),
		Name:                  meta.str("name"),
		Type:                  spec.str("type"),
		ExternalTrafficPolicy: spec.str("externalTrafficPolicy"),
		InternalTrafficPolicy: spec.str("internalTrafficPolicy"),
	}
	s.ExternalIPs = spec.strs("externalIPs")
	for _, in := range o.child("status").child("loadBalancer").list("ingress") {
		if ip := in.str("ip"); ip != "" {
			s.ExternalIPs = append(s.ExternalIPs, ip)
		}
	}
	s.ClusterIPs = spec.strs("clusterIPs")
	if len(s.ClusterIPs) == 0 {
		s.ClusterIPs = spec.strs("clusterIP")
	}
	for _, p := range spec.list("ports") {
		sp := ServicePort{Name: p.str("name"), Protocol: p.str("protocol"), TargetPort: p.str("targetPort")}
		sp.Port, _ = p.num("port")
		sp.NodePort, _ = p.num("nodePort")
		if sp.Protocol == "" {
			sp.Protocol = "TCP"
		}
		s.Ports = append(s.Ports, sp)
	}
	return s
}

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
	return parseAddr(n.Annotations[AnnotationFlannelPublicIP])
}

// FlannelBackend is the node's flannel backend data: VNI and VTEP MAC.
func (n *KubeNode) FlannelBackend() (vni int64, vtepMAC string, ok bool) {
	raw, found := n.Annotations[AnnotationFlannelBackendData]
	if !found {
		return 0, "", false
	}
	v, err := parseJSON([]byte(raw))
	if err != nil {
		return 0, "", false
	}
	objs := objects(v)
	if len(objs) == 0 {
		return 0, "", false
	}
	vni, _ = objs[0].num("VNI", "VNID")
	return vni, NormalizeMAC(objs[0].str("VtepMAC")), true
}

// CalicoVXLANTunnelAddr is the address of the node's Calico VXLAN tunnel
// device: the first host address of one of its affine IPAM blocks.
func (n *KubeNode) CalicoVXLANTunnelAddr() netip.Addr {
	return parseAddr(n.Annotations[AnnotationCalicoVXLANAddr])
}

// CalicoNodeIP is the node address Calico autodetected (IPv4Address).
func (n *KubeNode) CalicoNodeIP() netip.Addr {
	return parseAddr(n.Annotations[AnnotationCalicoIPv4Address])
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

// ParseEndpointSlices parses an EndpointSliceList (kubectl get
// endpointslices -A -o json).
func ParseEndpointSlices(data []byte) ([]*EndpointSlice, error) {
	return parseEach(data, func(o obj, _ int) *EndpointSlice {
		meta := o.child("metadata")
		es := &EndpointSlice{Namespace: meta.str("namespace"), Service: meta.child("labels").str("kubernetes.io/service-name")}
		if es.Service == "" {
			return nil
		}
		for _, p := range o.list("ports") {
			if n, ok := p.num("port"); ok {
				proto := strings.ToUpper(p.str("protocol"))
				if proto == "" {
					proto = "TCP"
				}
				es.Ports = append(es.Ports, proto+"/"+strconv.FormatInt(n, 10))
			}
		}
		for _, e := range o.list("endpoints") {
			se := SliceEndpoint{NodeName: e.str("nodeName"), Ready: true, Hinted: e.child("hints") != nil}
			// A missing ready condition means ready (the API's convention).
			if ready, ok := e.child("conditions").boolean("ready"); ok {
				se.Ready = ready
			}
			for _, a := range e.strs("addresses") {
				if addr := parseAddr(a); addr.IsValid() {
					se.Addresses = append(se.Addresses, addr)
				}
			}
			es.Endpoints = append(es.Endpoints, se)
		}
		return es
	})
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
