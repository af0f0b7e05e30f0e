package diff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// loadBalancers pairs load balancers by what they serve (frontend VIPs and
// ports), not by ID: kube-proxy recreates them with new IDs on every sync
// after an HNS restart, and the service is what the operator knows.
func (c *comparer) loadBalancers() {
	om, ok := keyed(c.old.LoadBalancers, lbKey)
	nm, nk := keyed(c.new.LoadBalancers, lbKey)
	oldIPs, newIPs := endpointIPs(c.old), endpointIPs(c.new)
	pairs(om, nm, ok, nk, func(k string, o, n *snapshot.LoadBalancer, inOld, inNew bool) {
		switch {
		case !inNew:
			c.add(Change{Kind: KindLoadBalancer, Name: k, ID: o.ID, Change: Removed, Detail: lbDetail(o, oldIPs)})
		case !inOld:
			c.add(Change{Kind: KindLoadBalancer, Name: k, ID: n.ID, Change: Added, Detail: lbDetail(n, newIPs)})
		default:
			base := Change{Kind: KindLoadBalancer, Name: k, ID: n.ID}
			c.field(base, "SourceVIP", o.SourceVIP, n.SourceVIP)
			c.field(base, "Backends", backends(o, oldIPs), backends(n, newIPs))
			if o.Knows("Flags") && n.Knows("Flags") {
				c.field(base, "DSR", boolString(o.Flags&1 != 0), boolString(n.Flags&1 != 0))
			}
		}
	})
}

// lbKey names a load balancer by its frontends: "10.96.0.10 UDP 53->53".
// One without frontends or ports is known by its ID only.
func lbKey(lb *snapshot.LoadBalancer) string {
	var ports []string
	for _, p := range lb.PortMappings {
		ports = append(ports, fmt.Sprintf("%s %d->%d", protocol(p.Protocol), p.ExternalPort, p.InternalPort))
	}
	vips := set(lb.FrontendVIPs)
	if vips == "" && len(ports) == 0 {
		return "id " + strings.ToUpper(lb.ID)
	}
	if vips == "" {
		vips = "(all addresses)" // a NodePort load balancer listens on every host address
	}
	return strings.TrimSpace(vips + " " + set(ports))
}

func protocol(p int64) string {
	switch p {
	case 6:
		return "TCP"
	case 17:
		return "UDP"
	case 0:
		return "any"
	}
	return fmt.Sprintf("proto %d", p)
}

// endpointIPs resolves backend endpoint IDs to addresses: the IDs change
// when endpoints are recreated, the pods' addresses often do not.
func endpointIPs(s *snapshot.Snapshot) map[string]string {
	m := make(map[string]string, len(s.Endpoints))
	for _, e := range s.Endpoints {
		if a := addr(e.IP); a != "" {
			m[strings.ToUpper(e.ID)] = a
		}
	}
	return m
}

func backends(lb *snapshot.LoadBalancer, ips map[string]string) string {
	out := make([]string, 0, lb.EndpointIDs.Len())
	for _, id := range lb.EndpointIDs.All() {
		if ip := ips[strings.ToUpper(id)]; ip != "" {
			out = append(out, ip)
		} else {
			out = append(out, strings.ToUpper(id))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lessName(out[i], out[j]) })
	return strings.Join(dedupe(out), ", ")
}

func dedupe(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || s[i-1] != v {
			out = append(out, v)
		}
	}
	return out
}

func lbDetail(lb *snapshot.LoadBalancer, ips map[string]string) string {
	d := fmt.Sprintf("%d backend(s)", lb.EndpointIDs.Len())
	if lb.SourceVIP != "" {
		d += ", SourceVIP " + lb.SourceVIP
	}
	if b := backends(lb, ips); b != "" && lb.EndpointIDs.Len() <= 5 {
		d += ": " + b
	}
	return d
}
