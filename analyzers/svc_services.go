package analyzers

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "SVC-03", Title: "Service or DNS load balancer missing or broken", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSLoadBalancers},
		Checks: "Load balancers exist when Services do; the kube-dns ClusterIP has UDP and TCP port-53 load balancers; with EndpointSlices in the bundle, every TCP/UDP port of a " +
			"Service with ready endpoints has a load balancer on its ClusterIP (traffic-policy Local and headless Services excepted); every load balancer's backends are endpoints " +
			"HNS has; V1 policy lists are in state 2 (IsApplied: False alone is normal).",
		Why: "kube-proxy deletes every load balancer at start and after losing the network; a missing DNS load balancer breaks every lookup by name while pod IPs still work.",
		Fix: "Restart kube-proxy and read its log for hcnCreateLoadBalancer errors (port already exists, switch-port not found, invalid reference); fix the network name (OVL-09) when it cannot find the network.",
		Sources: []string{"microsoft/SDN networkhealth.ps1 ValidDNSLoadbalancerPolicy, LoadBalancerPolicyState", "https://github.com/kubernetes/kubernetes/issues/110674",
			"https://github.com/projectcalico/calico/issues/5762"},
		Check: checkLoadBalancers,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (a load balancer per Service port; every policy removed when the network is lost)",
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 ValidDNSLoadbalancerPolicy, LoadBalancerPolicyState",
		},
		Guards: []string{
			"IsApplied: False alone is normal; only a V1 policy list State other than 2 is reported",
			"no load balancer at all is reported only when the bundle has Services",
			"the DNS load balancers are checked only when the cluster DNS address is known",
			"dangling backends are judged only with HNS endpoints in the bundle",
			"missing Service load balancers only with Services and EndpointSlices; Services without ready endpoints, headless, ExternalName and traffic-policy Local ones, non-TCP/UDP ports and IPv6 ClusterIPs are not judged",
			guardLinux,
		},
	})
}

func checkLoadBalancers(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	lbFile := s.Inputs[snapshot.InputHNSLoadBalancers]
	if len(s.LoadBalancers) == 0 {
		if len(s.Services) > 0 {
			issues = append(issues, Issue{Summary: fmt.Sprintf("HNS has no load balancers while the cluster has %d Services: kube-proxy is not running or not syncing", len(s.Services)),
				Evidence: []finding.Evidence{{File: lbFile, Field: "load balancers", Value: "0"}, {File: s.Inputs[snapshot.InputKubeServices], Field: "Services", Value: strconv.Itoa(len(s.Services))}}})
		}
		return issues, nil
	}
	// DNS: UDP and TCP 53 on the kube-dns ClusterIP.
	if dns := s.Facts.DNSServiceIP.Value; dns != "" {
		have := map[int64]bool{}
		for _, lb := range s.LoadBalancers {
			if !slices.Contains(lb.FrontendVIPs, dns) {
				continue
			}
			for _, pm := range lb.PortMappings {
				if pm.ExternalPort == 53 {
					have[pm.Protocol] = true
				}
			}
		}
		for _, proto := range []struct {
			n    int64
			name string
		}{{17, "UDP"}, {6, "TCP"}} {
			if !have[proto.n] {
				issues = append(issues, Issue{Summary: fmt.Sprintf("no %s/53 load balancer for the cluster DNS %s: lookups by name fail from this node's pods", proto.name, dns),
					Evidence: []finding.Evidence{{File: lbFile, Field: "FrontendVIPs / PortMappings", Value: "none for " + dns + " " + proto.name + "/53", Expected: "one"},
						{File: s.Facts.DNSServiceIP.Source, Field: "cluster DNS", Value: dns}},
					Subjects: []string{"address:" + dns}})
			}
		}
	}
	// Backends HNS does not have, and V1 policy lists not applied.
	if s.Has(snapshot.InputHNSEndpoints) {
		ids := endpointsByID(s)
		for _, lb := range s.LoadBalancers {
			var dangling []string
			for id, i := range ids.Backends(lb.EndpointIDs) {
				if i < 0 {
					dangling = append(dangling, id)
				}
			}
			if len(dangling) > 0 {
				issues = append(issues, Issue{Summary: fmt.Sprintf("load balancer %s (%s) points at %d endpoint(s) HNS does not have", lb.ID, strings.Join(lb.FrontendVIPs, ", "), len(dangling)),
					Evidence: []finding.Evidence{{File: lb.Ref.File, Object: "load balancer " + lb.ID, Field: "HostComputeEndpoints / References", Value: strings.Join(firstN(dangling, 5), ", "), Expected: "endpoints in " + s.Inputs[snapshot.InputHNSEndpoints]}}})
			}
		}
	}
	for _, lb := range s.LoadBalancers {
		if lb.State != 0 && lb.State != 2 {
			issues = append(issues, Issue{Summary: fmt.Sprintf("policy list %s (%s) is in state %d, not 2 (applied)", lb.ID, strings.Join(lb.FrontendVIPs, ", "), lb.State),
				Evidence: []finding.Evidence{{File: lb.Ref.File, Object: "policy list " + lb.ID, Field: "State", Value: strconv.FormatInt(lb.State, 10), Expected: "2", Note: "IsApplied: False alone is normal"}}})
		}
	}
	return append(issues, missingServiceLBs(s)...), nil
}

// missingServiceLBs: with the Services and their EndpointSlices in the
// bundle, every port of a Service with ready endpoints has a load balancer
// on its ClusterIP. Services whose traffic policies let kube-proxy leave
// the ClusterIP out (internalTrafficPolicy Local; externalTrafficPolicy
// Local is SVC-08's), headless Services and the DNS ports judged above are
// not judged here.
func missingServiceLBs(s *snapshot.Snapshot) []Issue {
	if !s.Has(snapshot.InputEndpointSlices) || !s.Has(snapshot.InputKubeServices) {
		return nil
	}
	protoNums := map[string]int64{"TCP": 6, "UDP": 17}
	byVIP := loadBalancersByVIP(s)
	dns := s.Facts.DNSServiceIP.Value
	var issues []Issue
	for _, svc := range s.Services {
		if svc.Type == "ExternalName" || strings.EqualFold(svc.InternalTrafficPolicy, "Local") || strings.EqualFold(svc.ExternalTrafficPolicy, "Local") {
			continue
		}
		if ready, _ := snapshot.ReadyEndpoints(s.SlicesOf(svc.Namespace, svc.Name)); ready == 0 {
			continue
		}
		for _, ipText := range svc.ClusterIPs {
			ip, err := netip.ParseAddr(ipText)
			if err != nil || !ip.Is4() {
				continue // headless ("None"); IPv6 on a single-stack node
			}
			var missing []string
			for _, p := range svc.Ports {
				proto, ok := protoNums[strings.ToUpper(p.Protocol)]
				if !ok || ipText == dns && p.Port == 53 {
					continue
				}
				found := false
				for _, lb := range byVIP[ipText] {
					for _, pm := range lb.PortMappings {
						found = found || pm.ExternalPort == p.Port && pm.Protocol == proto
					}
				}
				if !found {
					missing = append(missing, fmt.Sprintf("%s/%d", strings.ToUpper(p.Protocol), p.Port))
				}
			}
			if len(missing) == 0 {
				continue
			}
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("Service %s/%s has ready endpoints but no load balancer for %s %s on this node: its pods cannot reach it by ClusterIP",
					svc.Namespace, svc.Name, ipText, strings.Join(missing, ", ")),
				Evidence: []finding.Evidence{{File: snapshot.FileKubeServices, Object: "Service " + svc.Namespace + "/" + svc.Name, Field: "spec.clusterIPs, ports",
					Value: ipText + " " + strings.Join(missing, ", "), Expected: "a load balancer for each, as kube-proxy programs them"}},
				Subjects: []string{"service:" + svc.Namespace + "/" + svc.Name, "vip:" + ipText},
			})
		}
	}
	return issues
}

// isPodEndpoint tells a Kubernetes pod's endpoint from a container's that is
// not a pod: on an Overlay/L2Bridge network it is a pod; on the Windows NAT
// network (Docker's and containerd's nat plugin's "nat") it is not; on any
// other network, or one the input does not show, only when something shows
// this is a Kubernetes node (k8s) or the network is named as flannel and
// Calico name theirs.
func isPodEndpoint(e *snapshot.Endpoint, nets map[string]*snapshot.Network, k8s string) bool {
	n := nets[strings.ToLower(e.NetworkID)]
	if n == nil {
		n = nets[strings.ToLower(e.NetworkName)]
	}
	name := strings.ToLower(e.NetworkName)
	if n != nil {
		if strings.EqualFold(n.Type, snapshot.TypeNAT) {
			return false
		}
		name = strings.ToLower(n.Name)
	} else if name == "nat" {
		return false
	}
	// Docker creates Overlay (swarm) and L2Bridge networks too: the type
	// alone does not make a pod network, a Kubernetes node or a CNI
	// plugin's network name does.
	return k8s != "" || cniNetworkName(name)
}

// cniNetworkName: the HNS network names the Kubernetes network plugins give
// (flannel's flannel.<VNI>, vxlan0 and cbr0, Calico's Calico, Azure CNI's
// azure).
func cniNetworkName(name string) bool {
	return strings.HasPrefix(name, "flannel") || strings.HasPrefix(name, "calico") || name == "vxlan0" || name == "cbr0" || name == "azure"
}
