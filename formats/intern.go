package formats

import "github.com/wincni/diag/snapshot"

// guids keeps one copy of each backend ID the load balancers of a load
// name: a load balancer names its backends by their endpoints' IDs
// (127,000 references to 20,000 endpoints in a 1,000-node cluster's
// bundle), and without it each reference would keep its own copy for the
// whole analysis. It lives for one load and one list (no lock: the
// endpoints, read side by side, keep their own IDs).
type guids struct {
	m map[string]string
}

func (g *guids) get(s string) string {
	if s == "" {
		return s
	}
	if v, ok := g.m[s]; ok {
		return v
	}
	if g.m == nil {
		g.m = map[string]string{}
	}
	g.m[s] = s
	return s
}

// loadBalancers wraps a builder to share the backend IDs.
func (g *guids) loadBalancers(build func(obj, snapshot.Ref) *snapshot.LoadBalancer) func(obj, snapshot.Ref) *snapshot.LoadBalancer {
	return func(o obj, ref snapshot.Ref) *snapshot.LoadBalancer {
		lb := build(o, ref)
		for i, id := range lb.EndpointIDs {
			lb.EndpointIDs[i] = g.get(id)
		}
		return lb
	}
}

// shareBackendIDs points the load balancers' backend IDs at the strings
// of the endpoints they name, so that each ID is kept once. The two lists
// are read side by side, each with its own copies; this is done once both
// are in.
func shareBackendIDs(eps []*snapshot.Endpoint, lbs []*snapshot.LoadBalancer) {
	if len(eps) == 0 || len(lbs) == 0 {
		return
	}
	byID := make(map[string]string, len(eps))
	for _, e := range eps {
		byID[e.ID] = e.ID
	}
	for _, lb := range lbs {
		for i, id := range lb.EndpointIDs {
			if own, ok := byID[id]; ok {
				lb.EndpointIDs[i] = own
			}
		}
	}
}
