package snapshot

// LoadBalancersByVIP indexes the load balancers by frontend VIP, each
// VIP's in their order, built on first use and kept: several rules match
// Services to what kube-proxy programmed, and a node in a large cluster
// holds thousands of load balancers. The index is read-only, like the
// load balancers once loaded.
func (s *Snapshot) LoadBalancersByVIP() map[string][]*LoadBalancer {
	if s.lbsByVIP == nil {
		s.lbsByVIP = make(map[string][]*LoadBalancer, len(s.LoadBalancers))
		for _, lb := range s.LoadBalancers {
			for _, v := range lb.FrontendVIPs {
				s.lbsByVIP[v] = append(s.lbsByVIP[v], lb)
			}
		}
	}
	return s.lbsByVIP
}
