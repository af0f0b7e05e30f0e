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
		Upstream: []string{
			"Windows Server 2022 HNS (overlay NodePort to a local Windows pod times out; microsoft/Windows-Containers#204)",
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (NodePort load balancer without a VIP, LocalRoutedVIP)",
		},
		Guards: []string{
			"only Windows Server 2022 (build 20348) with an overlay CNI network",
			"Services with externalTrafficPolicy Local, without node ports, or without a backend on this node are not reported",
			"a warning: whether it bites depends on where clients come from",
			guardLinux,
		},
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
	lbByVIP := loadBalancersByVIP(s)
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
				for _, id := range lb.EndpointIDs.All() {
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

func init() {
	register(&Rule{
		ID: "SVC-08", Title: "externalTrafficPolicy Local Service without its ClusterIP load balancer", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSLoadBalancers, snapshot.InputKubeServices, snapshot.InputEndpointSlices},
		Checks: "Every Service with externalTrafficPolicy Local that has ready endpoints (anywhere in the cluster, by its EndpointSlices) has a load balancer for each of its " +
			"ClusterIPs on this node. A missing load balancer for its node port or ingress IP when no backend is local is expected and not reported.",
		Why: "kube-proxy versions around 1.26 skipped the ClusterIP load balancer of such Services on nodes without a local backend ('all endpoints are terminating'): " +
			"pods on this node cannot reach the Service by its ClusterIP, though it works from other nodes.",
		Fix:     "Upgrade kube-proxy to a release with kubernetes/kubernetes#115919 (or its backports), then restart it.",
		Sources: []string{"https://github.com/kubernetes/kubernetes/issues/115783", "https://github.com/kubernetes/kubernetes/pull/115919", "https://github.com/kubernetes/kubernetes/issues/109780"},
		Check:   checkETPLocalClusterIP,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (the ClusterIP load balancer takes every endpoint; NodePort and ingress only local ones with externalTrafficPolicy Local)",
		},
		Guards: []string{
			"Services without a ready endpoint anywhere are not judged",
			"headless (None) ClusterIPs are not judged",
			"no NodePort or ingress load balancer when no backend is local is expected and not reported",
			guardLinux,
		},
	})
}

func checkETPLocalClusterIP(s *snapshot.Snapshot) ([]Issue, error) {
	byVIP := loadBalancersByVIP(s)
	var issues []Issue
	for _, svc := range s.Services {
		if !strings.EqualFold(svc.ExternalTrafficPolicy, "Local") {
			continue
		}
		ready, nodes := snapshot.ReadyEndpoints(s.SlicesOf(svc.Namespace, svc.Name))
		if ready == 0 {
			continue
		}
		for _, ip := range svc.ClusterIPs {
			if ip == "" || strings.EqualFold(ip, "None") || len(byVIP[ip]) > 0 {
				continue
			}
			where := "on other nodes"
			if len(nodes) > 0 {
				where = "on " + listSome(nodes, 3)
			}
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("Service %s/%s (externalTrafficPolicy Local) has %d ready endpoints %s but no load balancer for its ClusterIP %s on this node: its pods cannot reach it by ClusterIP",
					svc.Namespace, svc.Name, ready, where, ip),
				Evidence: []finding.Evidence{
					{File: snapshot.FileKubeServices, Object: "Service " + svc.Namespace + "/" + svc.Name, Field: "spec.clusterIPs", Value: ip, Expected: "a load balancer with this VIP"},
					{File: snapshot.FileEndpointSlices, Object: "EndpointSlices of " + svc.Namespace + "/" + svc.Name, Field: "ready endpoints", Value: fmt.Sprint(ready)},
				},
				Subjects: []string{"service:" + svc.Namespace + "/" + svc.Name, "vip:" + ip},
			})
		}
	}
	return issues, nil
}
