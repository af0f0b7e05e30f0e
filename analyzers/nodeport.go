package analyzers

import (
	"fmt"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "SVC-07", Title: "NodePort with externalTrafficPolicy Cluster on a Windows Server 2022 overlay node", Severity: finding.Warn,
		Needs: []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputOS, snapshot.InputKubeServices, snapshot.InputHNSLoadBalancers, snapshot.InputHNSEndpoints},
		Checks: "On Windows Server 2022 (build 20348) with an overlay CNI network: NodePort and LoadBalancer Services with externalTrafficPolicy Cluster whose load balancer " +
			"has a backend on this node. No fixed build is published, so every WS2022 build is reported.",
		Why: "On WS2022 overlay, nodeIP:nodePort times out when the backend is a pod on a Windows node (microsoft/Windows-Containers#204); " +
			"from the node itself a NodePort is never reachable, by design.",
		Fix:         "Set externalTrafficPolicy: Local on the Service (clients must then reach a node with a backend), or test through the Service's ClusterIP; watch Windows-Containers#204 for an OS fix.",
		Sources:     []string{"https://github.com/microsoft/Windows-Containers/issues/204", "https://github.com/kubernetes/website/pull/31759", "https://github.com/rancher/windows/issues/159"},
		WindowsOnly: true,
		Check:       checkWS2022NodePort,
	})
}

func checkWS2022NodePort(s *snapshot.Snapshot) ([]Issue, error) {
	n := s.CNINetwork()
	if s.OS == nil || s.OS.Build != buildWS2022 || n == nil || n.Type != snapshot.TypeOverlay {
		return nil, nil
	}
	local := map[string]bool{}
	for _, e := range s.Endpoints {
		if !e.IsRemote {
			local[e.ID] = true
		}
	}
	lbByVIP := map[string][]*snapshot.LoadBalancer{}
	for _, lb := range s.LoadBalancers {
		for _, v := range lb.FrontendVIPs {
			lbByVIP[v] = append(lbByVIP[v], lb)
		}
	}
	var issues []Issue
	for _, svc := range s.Services {
		if (svc.Type != "NodePort" && svc.Type != "LoadBalancer") || strings.EqualFold(svc.ExternalTrafficPolicy, "Local") {
			continue
		}
		var nodePorts []string
		for _, p := range svc.Ports {
			if p.NodePort > 0 {
				nodePorts = append(nodePorts, fmt.Sprintf("%d/%s", p.NodePort, p.Protocol))
			}
		}
		if len(nodePorts) == 0 {
			continue
		}
		hasLocal := false
		for _, ip := range svc.ClusterIPs {
			for _, lb := range lbByVIP[ip] {
				for _, id := range lb.EndpointIDs {
					hasLocal = hasLocal || local[id]
				}
			}
		}
		if !hasLocal {
			continue
		}
		etp := svc.ExternalTrafficPolicy
		if etp == "" {
			etp = "Cluster"
		}
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("%s Service %s/%s (node ports %s, externalTrafficPolicy %s) has backends on this Windows Server 2022 overlay node: nodeIP:nodePort can time out (Windows-Containers#204)",
				svc.Type, svc.Namespace, svc.Name, strings.Join(nodePorts, ", "), etp),
			Evidence: []finding.Evidence{
				{File: snapshot.FileKubeServices, Object: "Service " + svc.Namespace + "/" + svc.Name, Field: "spec.externalTrafficPolicy", Value: etp, Expected: "Local"},
				osEvidence(s, "a build with the overlay NodePort fix (none published)"),
			},
			Subjects: []string{"service:" + svc.Namespace + "/" + svc.Name},
		})
	}
	return issues, nil
}
