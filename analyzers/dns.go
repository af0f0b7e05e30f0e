package analyzers

import (
	"fmt"
	"net/netip"
	"path"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
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
