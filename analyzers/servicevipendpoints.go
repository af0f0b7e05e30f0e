package analyzers

import (
	"net/netip"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// On an overlay network kube-proxy (pkg/proxy/winkernel, syncProxyRules)
// creates, for each Service ClusterIP, a remote HNS endpoint with the
// ClusterIP as address, the host's MAC (hostMac, the interface holding the
// node IP) and the node IP as ProviderAddress (hns.go createEndpoint with
// isLocal false). It is no load balancer's backend, and a Service without
// ready endpoints has it but no load balancer at all.

type vipEndpointKind int

const (
	vipNone     vipEndpointKind = iota // not a Service VIP endpoint
	vipLive                            // the address is a load balancer VIP or a Service ClusterIP
	vipUnjudged                        // looks like one; without the Services it cannot be judged
	vipDeleted                         // looks like one, and no Service in the bundle has the address
)

type serviceVIPIndex struct {
	vips     map[netip.Addr]bool
	service  netip.Prefix
	cluster  netip.Prefix
	network  *snapshot.Network
	own      nodeAddrs
	services bool // the bundle has the Services
}

func serviceVIPEndpoints(s *snapshot.Snapshot) serviceVIPIndex {
	n := s.CNINetwork()
	x := serviceVIPIndex{vips: map[netip.Addr]bool{}, service: s.Facts.ServiceCIDR.Prefix(), cluster: s.Facts.ClusterCIDR.Prefix(),
		network: n, own: ownAddresses(s, n), services: s.Has(snapshot.InputKubeServices)}
	for _, lb := range s.LoadBalancers {
		for _, v := range lb.FrontendVIPs {
			if a := parseFactAddr(v); a.IsValid() {
				x.vips[a] = true
			}
		}
	}
	for _, svc := range s.Services {
		for _, ip := range svc.ClusterIPs {
			if a := parseFactAddr(ip); a.IsValid() {
				x.vips[a] = true
			}
		}
	}
	return x
}

// shape: the address is in the service CIDR or, when that is unknown, an
// address outside the pod networks on an endpoint with the host's MAC and
// this node's address as ProviderAddress. Without the host adapters any MAC
// but kube-proxy's conjured one (02-11-<ip>, its remote backends) counts,
// and without a sure node address any ProviderAddress: unsure means silent.
func (x serviceVIPIndex) shape(e *snapshot.Endpoint) bool {
	if x.service.IsValid() {
		return x.service.Contains(e.IP)
	}
	if x.cluster.IsValid() && x.cluster.Contains(e.IP) || x.network != nil && x.network.ContainsAddr(e.IP) {
		return false
	}
	hostMAC := x.own.macs[e.MAC] || len(x.own.macs) == 0 && !strings.HasPrefix(e.MAC, "02:11:")
	return hostMAC && (x.own.has(e.ProviderAddress) || !x.own.solid)
}

func (x serviceVIPIndex) classify(e *snapshot.Endpoint) vipEndpointKind {
	switch {
	case x.vips[e.IP]:
		return vipLive
	case !x.shape(e):
		return vipNone
	case x.services:
		return vipDeleted
	}
	return vipUnjudged
}

func (x serviceVIPIndex) why(e *snapshot.Endpoint) string {
	if x.service.IsValid() {
		return "remote endpoint in the service CIDR " + x.service.String() + " (ProviderAddress " + addrOrNone(e.ProviderAddress) + ")"
	}
	return "remote endpoint with the host's MAC " + e.MAC + " and this node's address " + e.ProviderAddress.String() + " as ProviderAddress"
}
