package analyzers

import "github.com/wincni/diag/snapshot"

// endpointsByID indexes the endpoints by their (normalized) ID, for rules
// that resolve load balancer backends or VFP ports to endpoints.
func endpointsByID(s *snapshot.Snapshot) map[string]*snapshot.Endpoint {
	byID := make(map[string]*snapshot.Endpoint, len(s.Endpoints))
	for _, e := range s.Endpoints {
		byID[e.ID] = e
	}
	return byID
}

// loadBalancersByVIP indexes the load balancers by frontend VIP, for rules
// that match Services to what kube-proxy programmed.
func loadBalancersByVIP(s *snapshot.Snapshot) map[string][]*snapshot.LoadBalancer {
	byVIP := make(map[string][]*snapshot.LoadBalancer, len(s.LoadBalancers))
	for _, lb := range s.LoadBalancers {
		for _, v := range lb.FrontendVIPs {
			byVIP[v] = append(byVIP[v], lb)
		}
	}
	return byVIP
}
