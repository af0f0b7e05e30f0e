package snapshot

// LoadBalancersByVIP indexes the load balancers by frontend VIP, each
// VIP's in their order, built on first use and kept while the list is the
// same: several rules match Services to what kube-proxy programmed, and a
// node in a large cluster holds thousands of load balancers. The index is
// read-only, like the load balancers once loaded.
func (s *Snapshot) LoadBalancersByVIP() map[string][]*LoadBalancer {
	if s.lbsByVIP == nil || !sameList(s.lbsIndexed, s.LoadBalancers) {
		s.lbsByVIP = make(map[string][]*LoadBalancer, len(s.LoadBalancers))
		s.lbsIndexed = s.LoadBalancers
		for _, lb := range s.LoadBalancers {
			for _, v := range lb.FrontendVIPs {
				s.lbsByVIP[v] = append(s.lbsByVIP[v], lb)
			}
		}
	}
	return s.lbsByVIP
}

// EndpointsByID is an index of the endpoints by ID (NewEndpointIndex),
// built on first use and kept while the list is the same, for the rules
// that resolve load balancer backends or VFP ports to endpoints.
func (s *Snapshot) EndpointsByID() *EndpointIndex {
	if s.epsByID == nil || !sameList(s.epsByID.eps, s.Endpoints) {
		s.epsByID = NewEndpointIndex(s.Endpoints)
	}
	return s.epsByID
}

// sameList says whether a and b are the same list, not only alike: the
// same length over the same array (a list grown or replaced since is not).
func sameList[T any](a, b []*T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
