package analyzers

import (
	"fmt"
	"net/netip"
	"path"
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
	register(&Rule{
		ID: "NAT-01", Title: "OutBoundNAT exceptions miss the cluster or service CIDR", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks:  "Each local pod endpoint's OutBoundNAT ExceptionList covers the cluster (pod) CIDR and the service CIDR (fail), and none is as broad as a /8 or more (warn: destinations in it are not SNATed and their replies cannot reach pods).",
		Why:     "Too narrow: pod-to-pod and pod-to-service traffic is SNATed to the node IP, breaking policy and source IPs. Too broad: hosts in the range cannot answer pods.",
		Fix:     "Set the CNI's ExceptionList to the cluster CIDR, the service CIDR and the node subnet(s), then recreate the pods (exceptions are applied at creation).",
		Sources: []string{"kubernetes.io Windows debugging tips (ExceptionList)", "https://github.com/Azure/AKS/issues/1367", "https://github.com/Azure/AKS/issues/1859"},
		Check:   checkOutboundNAT,
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go ApplyOutboundNatPolicy (OutBoundNAT ExceptionList)",
			"microsoft/windows-container-networking cni/cni.go GetNetworkInfo (endpoint policies from AdditionalArgs)",
			"Calico cni-plugin/internal/pkg/utils/winpol/windows_policy.go CalculateEndpointPolicies (IP pool CIDRs appended to the exceptions)",
			"sig-windows-tools hostprocess/flannel/flanneld/start.ps1 (exceptions: service and pod CIDR)",
		},
		Guards: []string{
			"skipped when neither the cluster nor the service CIDR is known",
			guardPodLocal,
			"endpoints without OutBoundNAT (NAT-03's) or whose policies the input hid are not judged",
			"a wider exception covers a narrower CIDR; a bare address counts as a /32",
			"exceptions as broad as a /8 are a warning only",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "DNS-01", Title: "Pod DNS server is not the cluster DNS", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSEndpoints, snapshot.InputKubeServices},
		Checks:  "Each local pod endpoint with DNS servers, and each CNI configuration file with dns.Nameservers, lists the kube-dns Service's ClusterIP first.",
		Why:     "A pod given another resolver (a default the runtime injected, a public one) cannot resolve cluster names.",
		Fix:     "Fix the DNS nameservers in the CNI configuration (dns.Nameservers) and recreate the pods.",
		Sources: []string{"https://github.com/microsoft/hcsshim/issues/2369", "https://github.com/ovn-kubernetes/ovn-kubernetes/issues/336"},
		Check:   checkPodDNS,
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go GetDNS (runtimeConfig dns servers replace the configuration's dns.Nameservers)",
			"microsoft/windows-container-networking cni/cni.go GetNetworkInfo (same for sdnoverlay/sdnbridge)",
			"kubelet clusterDNS: the kube-system/kube-dns Service's ClusterIP",
		},
		Guards: []string{
			"skipped without the kube-system/kube-dns Service",
			guardPodLocal,
			"endpoints without DNS servers, or whose DNSServerList the input hid, are not judged",
			"CNI configurations for the Windows NAT network are not judged",
			"only the first server must be the cluster DNS",
		},
	})
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

func epFile(e *snapshot.Endpoint) string { return e.Refs[len(e.Refs)-1].File }

func checkOutboundNAT(s *snapshot.Snapshot) ([]Issue, error) {
	cluster, service := s.Facts.ClusterCIDR.Prefix(), s.Facts.ServiceCIDR.Prefix()
	if !cluster.IsValid() && !service.IsValid() {
		return nil, Skip("neither the cluster CIDR nor the service CIDR is known (kube-proxy --cluster-cidr, endpoint ROUTE policies)")
	}
	var missing, broad []string
	var ev []finding.Evidence
	for _, e := range localPods(s) {
		if e.OutboundNAT == nil || !e.Knows("Policies") {
			continue
		}
		var exc []netip.Prefix
		for _, x := range e.OutboundNAT.Exceptions {
			if p, err := netip.ParsePrefix(strings.TrimSpace(x)); err == nil {
				exc = append(exc, p.Masked())
			} else if a, err := netip.ParseAddr(strings.TrimSpace(x)); err == nil {
				exc = append(exc, netip.PrefixFrom(a, a.BitLen()))
			}
		}
		covers := func(want netip.Prefix) bool {
			return slices.ContainsFunc(exc, func(p netip.Prefix) bool { return p.Bits() <= want.Bits() && p.Contains(want.Addr()) })
		}
		var lacks []string
		for _, want := range []struct {
			name string
			p    netip.Prefix
			fact snapshot.Fact
		}{{"cluster CIDR", cluster, s.Facts.ClusterCIDR}, {"service CIDR", service, s.Facts.ServiceCIDR}} {
			if want.p.IsValid() && !covers(want.p) {
				lacks = append(lacks, want.name+" "+want.p.String())
			}
		}
		if len(lacks) > 0 {
			missing = append(missing, fmt.Sprintf("%s (%s)", e.IP, strings.Join(lacks, ", ")))
			if len(ev) < 20 {
				ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "Policies[OutBoundNAT].ExceptionList",
					Value: strings.Join(e.OutboundNAT.Exceptions, ", "), Expected: "to include " + strings.Join(lacks, " and ")})
			}
		}
		for _, p := range exc {
			if p.Addr().Is4() && p.Bits() <= 8 {
				broad = append(broad, fmt.Sprintf("%s on %s", p, e.IP))
			}
		}
	}
	var issues []Issue
	if len(missing) > 0 {
		ev = append(ev, finding.Evidence{File: s.Facts.ClusterCIDR.Source, Field: "cluster CIDR", Value: s.Facts.ClusterCIDR.Value},
			finding.Evidence{File: s.Facts.ServiceCIDR.Source, Field: "service CIDR", Value: s.Facts.ServiceCIDR.Value})
		issues = append(issues, Issue{Summary: fmt.Sprintf("%d pod endpoint(s) SNAT traffic that must not be: %s", len(missing), strings.Join(firstN(missing, 5), "; ")), Evidence: ev})
	}
	if len(broad) > 0 {
		issues = append(issues, Issue{Severity: finding.Warn,
			Summary:  fmt.Sprintf("OutBoundNAT exceptions as broad as a /8: %s — hosts in those ranges are reached without SNAT and cannot answer pods", strings.Join(firstN(broad, 5), "; ")),
			Evidence: []finding.Evidence{{Field: "Policies[OutBoundNAT].ExceptionList", Value: strings.Join(firstN(broad, 20), "; "), Expected: "cluster CIDR, service CIDR, node subnet"}}})
	}
	return issues, nil
}

func firstN(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("and %d more", len(items)-n))
}

func checkPodDNS(s *snapshot.Snapshot) ([]Issue, error) {
	var dns netip.Addr
	for _, svc := range s.Services {
		if svc.Namespace == "kube-system" && svc.Name == "kube-dns" && len(svc.ClusterIPs) > 0 {
			dns, _ = netip.ParseAddr(svc.ClusterIPs[0])
		}
	}
	if !dns.IsValid() {
		return nil, Skip("no kube-system/kube-dns Service in %s", s.Inputs[snapshot.InputKubeServices])
	}
	var wrong []string
	var ev []finding.Evidence
	for _, e := range localPods(s) {
		if len(e.DNSServers) == 0 || !e.Knows("DNSServerList") {
			continue
		}
		if first, err := netip.ParseAddr(e.DNSServers[0]); err == nil && first == dns {
			continue
		}
		wrong = append(wrong, fmt.Sprintf("%s uses %s", e.IP, strings.Join(e.DNSServers, ", ")))
		if len(ev) < 20 {
			ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "DNSServerList", Value: strings.Join(e.DNSServers, ", "), Expected: dns.String() + " first"})
		}
	}
	// The CNI file is where new pods get their resolver: a wrong one there
	// breaks every pod created from now on, even when none runs yet.
	for _, c := range s.CNIConfigs {
		if len(c.Nameservers) == 0 || c.IsNAT() {
			continue
		}
		if first, err := netip.ParseAddr(strings.TrimSpace(c.Nameservers[0])); err == nil && first == dns {
			continue
		}
		wrong = append(wrong, fmt.Sprintf("%s gives new pods %s", path.Base(c.File), strings.Join(c.Nameservers, ", ")))
		ev = append(ev, finding.Evidence{File: c.File, Object: "CNI network " + c.Name, Field: "dns.Nameservers", Value: strings.Join(c.Nameservers, ", "), Expected: dns.String() + " first"})
	}
	if len(wrong) == 0 {
		return nil, nil
	}
	ev = append(ev, finding.Evidence{File: s.Inputs[snapshot.InputKubeServices], Object: "service kube-system/kube-dns", Field: "spec.clusterIP", Value: dns.String()})
	return []Issue{{Summary: fmt.Sprintf("%d pod endpoint(s) or CNI file(s) do not resolve through the cluster DNS %s: %s", len(wrong), dns, strings.Join(firstN(wrong, 5), "; ")),
		Evidence: ev, Subjects: []string{"address:" + dns.String()}}}, nil
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
		ids := map[string]bool{}
		for _, e := range s.Endpoints {
			ids[e.ID] = true
		}
		for _, lb := range s.LoadBalancers {
			var dangling []string
			for _, id := range lb.EndpointIDs {
				if !ids[id] {
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

func init() {
	register(&Rule{
		ID: "DNS-02", Title: "Pod DNS suffix list missing or not the pod's namespace first", Severity: finding.Warn,
		Needs: []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks: "Each local pod endpoint with DNS servers has a DNS suffix list whose first entry is <namespace>.svc.<cluster domain>. " +
			"Only pod endpoints are judged: those on a network a Kubernetes network plugin names (flannel.<VNI>, vxlan0, cbr0, Calico, azure), or on any non-NAT network when something shows this host is a Kubernetes node (Docker makes Overlay and L2Bridge networks too); " +
			"containers on the Windows NAT network (Docker, ctr, containerd's nat plugin) are not pods and carry the host's suffix. Without any Kubernetes evidence or pod endpoint the rule is skipped. " +
			"Pods with dnsPolicy Default or None legitimately have other suffixes; the bundle does not hold pod specs, hence warn.",
		Why: "Windows resolves short names only through the suffix list and treats any name with a dot as fully qualified: without the namespace suffix first, \"my-svc\" and \"kubernetes\" do not resolve, and \"my-svc.other-ns\" never does on Windows. " +
			"The list comes from kubelet through the runtime (runtimeConfig.dns.searches, when the CNI configuration has the dns capability), which win-overlay/win-bridge and sdnoverlay/sdnbridge use in place of the configuration's dns.Search; " +
			"without it win-overlay/win-bridge use dns.Search as written (\"svc.cluster.local\": no namespace), while sdnoverlay/sdnbridge prefix its first entry with the pod's namespace.",
		Fix: "Let the runtime pass the pod's DNS search list to the CNI (containerd with \"capabilities\": {\"dns\": true} in the CNI configuration), recreate the pods, and use names of the form svc or svc.ns.svc.cluster.local from Windows pods.",
		Sources: []string{"kubernetes.io DNS for Services and Pods (DNS resolution on Windows nodes)", "https://github.com/microsoft/Windows-Containers/issues/59",
			"containernetworking/plugins pkg/hns/netconf_windows.go (GetDNS: runtimeConfig dns replaces the configuration's)",
			"microsoft/windows-container-networking cni/cni.go (GetNetworkInfo: namespace prefixed to dns.Search[0]; runtimeConfig searches replace it)"},
		Check: checkDNSSuffix,
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go GetDNS (win-overlay/win-bridge: runtimeConfig searches replace dns.Search)",
			"microsoft/windows-container-networking cni/cni.go GetNetworkInfo (sdnoverlay/sdnbridge: the pod's namespace is prefixed to dns.Search[0]; runtimeConfig searches replace it)",
		},
		Guards: []string{
			"only pod endpoints: those on a network a Kubernetes network plugin names (flannel.<VNI>, vxlan0, cbr0, Calico, azure), or on any non-NAT network when something shows the host is a Kubernetes node; Docker's own Overlay (swarm) and L2Bridge networks are not pod networks",
			"containers on the Windows NAT network (Docker, ctr, containerd's nat plugin) are not pods and are not judged",
			"skipped on a host with no Kubernetes evidence (kube-proxy flags, pod-network CNI configuration, net-conf.json, a Node with its address) and no pod endpoint",
			"endpoints without DNS servers, or whose DNSSuffix the input hid, are not judged",
			"a warning: pods with dnsPolicy Default or None legitimately differ and pod specs are not in the bundle",
		},
	})
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

func checkDNSSuffix(s *snapshot.Snapshot) ([]Issue, error) {
	k8s := kubernetesEvidence(s)
	nets := map[string]*snapshot.Network{}
	for _, n := range s.Networks {
		if n.ID != "" {
			nets[strings.ToLower(n.ID)] = n
		}
		if n.Name != "" {
			nets[strings.ToLower(n.Name)] = n
		}
	}
	var none, wrong []string
	var ev []finding.Evidence
	judged, notPods := 0, 0
	for _, e := range localPods(s) {
		if len(e.DNSServers) == 0 || !e.Knows("DNSSuffix") {
			continue
		}
		if !isPodEndpoint(e, nets, k8s) {
			notPods++
			continue
		}
		judged++
		first := ""
		if len(e.DNSSuffixes) > 0 {
			first = strings.ToLower(strings.TrimSpace(e.DNSSuffixes[0]))
		}
		ns, rest, _ := strings.Cut(first, ".")
		switch {
		case first == "":
			none = append(none, e.IP.String())
		case ns == "" || !strings.HasPrefix(rest, "svc."):
			wrong = append(wrong, fmt.Sprintf("%s starts with %s", e.IP, first))
		default:
			continue
		}
		if len(ev) < 20 {
			ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "DNSSuffix", Value: orNone(e.DNSSuffixes), Expected: "<namespace>.svc.<cluster domain> first"})
		}
	}
	if judged == 0 && k8s == "" {
		if notPods > 0 {
			return nil, Skip("not a Kubernetes node: the %d endpoint(s) with DNS settings are on the NAT network or a network not shown as a pod network, and nothing (kube-proxy flags, a pod-network CNI configuration, flannel's net-conf.json, a Node holding this host's addresses) shows Kubernetes", notPods)
		}
		return nil, Skip("not a Kubernetes node: no pod endpoint with DNS settings, and nothing (kube-proxy flags, a pod-network CNI configuration, flannel's net-conf.json, a Node holding this host's addresses) shows Kubernetes")
	}
	var parts []string
	if len(none) > 0 {
		parts = append(parts, fmt.Sprintf("%d without any DNS suffix (%s)", len(none), strings.Join(firstN(none, 5), ", ")))
	}
	if len(wrong) > 0 {
		parts = append(parts, fmt.Sprintf("%d whose first suffix is not a namespace's (%s)", len(wrong), strings.Join(firstN(wrong, 5), "; ")))
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return []Issue{{Summary: "pod endpoints that cannot resolve short Service names: " + strings.Join(parts, "; "), Evidence: ev}}, nil
}
