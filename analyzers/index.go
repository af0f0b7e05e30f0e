package analyzers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// endpointsByID indexes the endpoints by their (normalized) ID, for rules
// that resolve load balancer backends or VFP ports to endpoints; the
// snapshot keeps it for all of them. Read-only.
func endpointsByID(s *snapshot.Snapshot) *snapshot.EndpointIndex {
	return s.EndpointsByID()
}

// loadBalancersByVIP indexes the load balancers by frontend VIP, for rules
// that match Services to what kube-proxy programmed; the snapshot keeps it
// for all of them. Read-only.
func loadBalancersByVIP(s *snapshot.Snapshot) map[string][]*snapshot.LoadBalancer {
	return s.LoadBalancersByVIP()
}

// localPods are the local endpoints that are pods: not remote, not the
// host/bridge endpoint (no DNS and no OutBoundNAT), not the source VIP.
func localPods(s *snapshot.Snapshot) []*snapshot.Endpoint {
	vip := s.Facts.SourceVIP.Addr()
	var out []*snapshot.Endpoint
	for _, e := range s.Endpoints {
		if e.IsRemote || !e.IP.IsValid() || e.IP == vip || strings.HasSuffix(strings.ToLower(e.Name), "_ep") {
			continue
		}
		if e.OutboundNAT == nil && len(e.DNSServers) == 0 {
			continue
		}
		out = append(out, e)
	}
	return out
}

// hasWindowsNode says whether the cluster, as its Nodes show, has a
// Windows node.
func hasWindowsNode(s *snapshot.Snapshot) bool {
	return slices.ContainsFunc(s.KubeNodes, (*snapshot.KubeNode).IsWindows)
}

// kubernetesEvidence names what shows this host is a Kubernetes node, or ""
// when nothing does (a plain Docker or containerd host, or a paste of HNS
// objects alone): kube-proxy's flags, flannel's net-conf.json, a CNI
// configuration for a pod network (not containerd's NAT one), a Kubernetes
// Node that is this host.
func kubernetesEvidence(s *snapshot.Snapshot) string {
	if kp := s.KubeProxy; kp != nil {
		return "kube-proxy's flags (" + kp.Source + ")"
	}
	if f := s.Flannel; f != nil {
		return "flannel's " + f.File
	}
	for _, c := range s.CNIConfigs {
		if cniIsPodNetwork(c) {
			return fmt.Sprintf("CNI configuration %s (%s)", c.File, strings.Join(c.Plugins, " → "))
		}
	}
	if self := s.SelfKubeNode(); self != nil {
		return "Kubernetes Node " + self.Name
	}
	if s.Format == snapshot.FormatCollectlogs {
		// microsoft/SDN's collectlogs.ps1 is the Kubernetes-on-Windows
		// log collector: nobody runs it on a plain container host.
		return "collectlogs.ps1 output (the Kubernetes-on-Windows log collector)"
	}
	for _, k := range s.KubeNodes {
		for _, ip := range k.InternalIPs {
			if s.AdapterWithAddr(ip) != nil {
				return "Kubernetes Node " + k.Name + " (its InternalIP " + ip.String() + " is on this host)"
			}
		}
	}
	return ""
}

// cniIsPodNetwork: a readable CNI configuration for a pod network, not one
// that attaches containers to the Windows NAT network (containerd's
// 0-containerd-nat.json, which a plain containerd host has too).
func cniIsPodNetwork(c *snapshot.CNIConfig) bool {
	return c.Invalid == "" && len(c.Plugins) > 0 && !c.IsNAT()
}
