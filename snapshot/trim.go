package snapshot

// DropNodeDetail lets a snapshot go of what only the per-node rules read,
// once they ran (analyzers.RunNode): the remote endpoints, load balancers,
// VFP rules, Services, EndpointSlices and the rest that a node in a large
// cluster holds by the tens of thousands. What stays is what the
// cross-node rules, the capture context and the report read: the facts,
// networks with their routes, adapters and routes, Kubernetes Nodes, the
// Linux side, the local endpoints (their MACs tell a capture's pods), the
// inputs and notes. Analyzing fifty bundles then holds fifty of these,
// not fifty whole snapshots.
func (s *Snapshot) DropNodeDetail() {
	local := s.Endpoints[:0:0]
	for _, e := range s.Endpoints {
		if !e.IsRemote {
			local = append(local, e)
		}
	}
	s.Endpoints = local
	s.LoadBalancers = nil
	s.Namespaces = nil
	s.VFPPorts = nil
	s.Services = nil
	s.EndpointSlices = nil
	s.Pods = nil
	s.Logs = nil
	s.CalicoIPAM = nil
	s.HNSDiag = nil
	s.slicesByService = nil
}
