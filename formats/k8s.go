package formats

import (
	"strconv"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// ParseKubeNodes parses a NodeList (kubectl get nodes -o json), a single Node
// or a bare array of Nodes.
func ParseKubeNodes(data []byte) ([]*snapshot.KubeNode, error) {
	return parseEach(data, func(o obj, _ int) *snapshot.KubeNode { return kubeNodeOf(o) })
}

func kubeNodeOf(o obj) *snapshot.KubeNode {
	meta, spec, status := o.child("metadata"), o.child("spec"), o.child("status")
	n := &snapshot.KubeNode{Name: meta.str("name")}
	if a := meta.child("annotations"); len(a) > 0 {
		pairs := make([]snapshot.Pair, 0, len(a))
		for k, val := range a {
			pairs = append(pairs, snapshot.Pair{Key: k, Value: asString(val)})
		}
		n.Annotations = snapshot.SortedPairs(pairs...)
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
		if p := snapshot.ParsePrefix(c); p.IsValid() {
			n.PodCIDRs = append(n.PodCIDRs, p)
		}
	}
	for _, a := range status.list("addresses") {
		addr := snapshot.ParseAddr(a.str("address"))
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
func ParseServices(data []byte) ([]*snapshot.Service, error) {
	return parseEach(data, func(o obj, _ int) *snapshot.Service { return serviceOf(o) })
}

func serviceOf(o obj) *snapshot.Service { return serviceWith(o, nil) }

// serviceWith is serviceOf taking the Service and what it keeps from slab,
// when set (a list's, serviceSlab).
func serviceWith(o obj, slab *serviceSlab) *snapshot.Service {
	meta, spec := o.child("metadata"), o.child("spec")
	s := slab.service()
	*s = snapshot.Service{
		Namespace:             meta.str("namespace"),
		Name:                  slab.text(meta.str("name")),
		Type:                  spec.str("type"),
		ExternalTrafficPolicy: spec.str("externalTrafficPolicy"),
		InternalTrafficPolicy: spec.str("internalTrafficPolicy"),
	}
	if hc, ok := spec.num("healthCheckNodePort"); ok && hc > 0 && hc < 65536 {
		s.HealthCheckNodePort = int(hc)
	}
	s.ExternalIPs = spec.strs("externalIPs")
	s.LoadBalancerClass = spec.str("loadBalancerClass")
	for _, in := range o.child("status").child("loadBalancer").list("ingress") {
		s.Ingress = s.Ingress || in.str("ip") != "" || in.str("hostname") != ""
		if ip := in.str("ip"); ip != "" {
			s.ExternalIPs = append(s.ExternalIPs, ip)
		}
	}
	s.ClusterIPs = spec.strs("clusterIPs")
	if len(s.ClusterIPs) == 0 {
		s.ClusterIPs = spec.strs("clusterIP")
	}
	s.ClusterIPs = slab.strings(s.ClusterIPs)
	var portBuf [4]snapshot.ServicePort
	ports := portBuf[:0]
	for _, p := range spec.list("ports") {
		sp := snapshot.ServicePort{Name: p.str("name"), Protocol: p.str("protocol"), TargetPort: p.str("targetPort")}
		sp.Port, _ = p.num("port")
		sp.NodePort, _ = p.num("nodePort")
		if sp.Protocol == "" {
			sp.Protocol = "TCP"
		}
		ports = append(ports, sp)
	}
	if len(ports) > 0 {
		s.Ports = slab.ports(ports)
	}
	return s
}

// serviceSlab hands out the Services of one list, their ClusterIPs and
// ports from shared blocks, as endpointSlab does for endpoints (5,000
// Services in a large cluster). One list's builder uses it (no lock). Each
// list it returns has its length as capacity: an append copies it.
type serviceSlab struct {
	svcs  []snapshot.Service
	strs  []string
	pts   []snapshot.ServicePort
	chars strArena
}

const (
	serviceSlabList = 512 // strings or ports a block; longer lists keep their own
)

// service is a zero Service; a new one without a slab.
func (s *serviceSlab) service() *snapshot.Service {
	if s == nil {
		return &snapshot.Service{}
	}
	return nextIn(&s.svcs)
}

// text is v in the slab's text; v itself without a slab.
func (s *serviceSlab) text(v string) string {
	if s == nil {
		return v
	}
	return s.chars.keep(v)
}

// strings is v and its strings in the slab; v itself without one.
func (s *serviceSlab) strings(v []string) []string {
	if s == nil || len(v) == 0 || len(v) > serviceSlabList/8 {
		return v
	}
	if cap(s.strs)-len(s.strs) < len(v) {
		s.strs = make([]string, 0, serviceSlabList)
	}
	n := len(s.strs)
	for _, x := range v {
		s.strs = append(s.strs, s.chars.keep(x))
	}
	return s.strs[n:len(s.strs):len(s.strs)]
}

// ports is a copy of v in the slab; a copy of its own without one.
func (s *serviceSlab) ports(v []snapshot.ServicePort) []snapshot.ServicePort {
	if s == nil || len(v) > serviceSlabList/8 {
		return append([]snapshot.ServicePort(nil), v...)
	}
	if cap(s.pts)-len(s.pts) < len(v) {
		s.pts = make([]snapshot.ServicePort, 0, serviceSlabList)
	}
	n := len(s.pts)
	s.pts = append(s.pts, v...)
	return s.pts[n:len(s.pts):len(s.pts)]
}

// ParseEndpointSlices parses an EndpointSliceList (kubectl get
// endpointslices -A -o json).
func ParseEndpointSlices(data []byte) ([]*snapshot.EndpointSlice, error) {
	return parseEach(data, func(o obj, _ int) *snapshot.EndpointSlice {
		meta := o.child("metadata")
		es := &snapshot.EndpointSlice{Namespace: meta.str("namespace"), Service: meta.child("labels").str("kubernetes.io/service-name")}
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
			se := snapshot.SliceEndpoint{NodeName: e.str("nodeName"), Ready: true, Hinted: e.child("hints") != nil}
			// A missing ready condition means ready (the API's convention).
			if ready, ok := e.child("conditions").boolean("ready"); ok {
				se.Ready = ready
			}
			for _, a := range e.strs("addresses") {
				if addr := snapshot.ParseAddr(a); addr.IsValid() {
					se.Addresses = append(se.Addresses, addr)
				}
			}
			es.Endpoints = append(es.Endpoints, se)
		}
		return es
	})
}
