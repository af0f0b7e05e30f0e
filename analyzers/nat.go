package analyzers

import (
	"fmt"
	"net/netip"
	"path"
	"slices"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "NAT-02", WindowsOnly: true, Title: "ExceptionList entry is not a network address", Severity: finding.Fail,
		Checks:  "Every OutBoundNAT ExceptionList entry, in the CNI configuration files and on the local endpoints, is a canonical CIDR: no host bits set below its mask (172.17.0.1/16 is not, 172.17.0.0/16 is).",
		Why:     "HNS on Windows Server 2022 and later rejects such an entry, so every pod creation fails with \"The provided policy configuration is invalid or missing parameters\"; the same configuration worked on Windows Server 2019.",
		Fix:     "Write each entry as its network address (172.17.0.0/16) in the CNI configuration, then recreate the pods.",
		Sources: []string{"https://github.com/microsoft/hcsshim/issues/1951"},
		Check:   checkCanonicalExceptions,
		Upstream: []string{
			"Windows HNS on Windows Server 2022 and later (rejects an OutBoundNAT exception with host bits set; microsoft/hcsshim#1951)",
			"microsoft/hcsshim hcn/hcnpolicy.go OutboundNatPolicySetting (Exceptions; V1 ExceptionList)",
		},
		Guards: []string{
			"only CIDR entries are judged: bare addresses and names are not",
			"remote endpoints are not judged",
			"skipped without CNI configuration and HNS endpoints",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "NAT-05", WindowsOnly: true, Title: "Pods attached to the Windows NAT network", Severity: finding.Fail,
		Checks:  "On a host that something shows is a Kubernetes node (kube-proxy flags, a pod-network CNI configuration, flannel's net-conf.json, a Node holding its addresses), the CNI configuration the runtime reads first (lexicographic order) is not the \"nat\" plugin (containerd's 0-containerd-nat.json alone is a plain containerd host's); no local endpoint on a network of type NAT (a network whose type the input does not show is not taken for NAT) has an address outside the cluster CIDR while a pod network exists.",
		Why:     "containerd uses the first file of its CNI configuration directory; a leftover 0-containerd-nat.json shadows flannel or Calico and pods get 172.x addresses with no route to the cluster.",
		Fix:     "Remove 0-containerd-nat.json from the CNI configuration directory (or rename the cluster's file so it sorts first), restart containerd and recreate the pods.",
		Sources: []string{"https://github.com/kubernetes-sigs/sig-windows-tools/issues/214", "https://github.com/kubernetes-sigs/sig-windows-tools/issues/215"},
		Check:   checkNATNetworkPods,
		Upstream: []string{
			"microsoft/windows-container-networking plugins/nat/nat_windows.go (containerd's nat plugin: the Windows NAT network)",
			"containerd CRI (uses the first configuration file of its CNI directory, by name)",
		},
		Guards: []string{
			"a NAT configuration read first is reported only when something shows the host is a Kubernetes node: 0-containerd-nat.json alone is a plain containerd host's",
			"networks whose type the input does not show are not taken for NAT",
			"NAT-network endpoints are judged only when a pod network exists and the cluster CIDR is known; addresses inside the cluster CIDR and remote endpoints are not reported",
			"such endpoints are a warning: they may be Docker containers",
			"skipped without CNI configuration and HNS endpoints",
			guardLinux,
		},
	})
}

// nonCanonical returns why an exception entry is rejected, or "".
func nonCanonical(entry string) string {
	p, err := netip.ParsePrefix(strings.TrimSpace(entry))
	if err != nil {
		return "" // a bare address or a name: not this rule's business
	}
	if m := p.Masked(); m != p {
		return m.String()
	}
	return ""
}

func checkCanonicalExceptions(s *snapshot.Snapshot) ([]Issue, error) {
	if err := needCNIConfigOrEndpoints(s); err != nil {
		return nil, err
	}
	var bad []string
	var ev []finding.Evidence
	seen := map[string]bool{}
	add := func(file, object, entry, want string) {
		if !seen[entry] {
			seen[entry] = true
			bad = append(bad, entry+" (should be "+want+")")
		}
		if len(ev) < 20 {
			ev = append(ev, finding.Evidence{File: file, Object: object, Field: "ExceptionList", Value: entry, Expected: want})
		}
	}
	for _, c := range s.CNIConfigs {
		for _, x := range c.Exceptions {
			if want := nonCanonical(x); want != "" {
				add(c.File, "CNI network "+c.Name, x, want)
			}
		}
	}
	for _, e := range s.Endpoints {
		if e.IsRemote || e.OutboundNAT == nil {
			continue
		}
		for _, x := range e.OutboundNAT.Exceptions {
			if want := nonCanonical(x); want != "" {
				add(epFile(e), "endpoint "+e.ID, x, want)
			}
		}
	}
	if len(bad) == 0 {
		return nil, nil
	}
	return []Issue{{Summary: fmt.Sprintf("OutBoundNAT exception(s) with host bits set: %s — Windows Server 2022 and later refuse to create endpoints with them",
		strings.Join(firstN(bad, 5), "; ")), Evidence: ev}}, nil
}

func checkNATNetworkPods(s *snapshot.Snapshot) ([]Issue, error) {
	if err := needCNIConfigOrEndpoints(s); err != nil {
		return nil, err
	}
	var issues []Issue
	if len(s.CNIConfigs) > 0 {
		first := s.CNIConfigs[0]
		// containerd's 0-containerd-nat.json alone is a plain containerd
		// host's configuration: only a Kubernetes node's pods are misplaced.
		if first.IsNAT() && kubernetesEvidence(s) != "" {
			var others []string
			for _, c := range s.CNIConfigs[1:] {
				others = append(others, path.Base(c.File))
			}
			summary := fmt.Sprintf("the runtime reads %s first, a %q plugin configuration: pods are attached to the Windows NAT network", path.Base(first.File), first.Plugins[0])
			if len(others) > 0 {
				summary += ", not to the cluster network of " + strings.Join(others, ", ")
			}
			issues = append(issues, Issue{Summary: summary,
				Evidence: []finding.Evidence{{File: first.File, Field: "type", Value: strings.Join(first.Plugins, " → "), Expected: "the cluster CNI (flannel, calico, sdnoverlay, sdnbridge, azure-vnet, antrea) in the first file"}},
				Subjects: []string{"network:nat"}})
		}
	}
	cluster := s.Facts.ClusterCIDR.Prefix()
	hasPodNetwork := len(cniNetworks(s)) > 0
	if !hasPodNetwork || !cluster.IsValid() {
		return issues, nil
	}
	nat := map[string]*snapshot.Network{}
	for _, n := range s.Networks {
		if strings.EqualFold(n.Type, snapshot.TypeNAT) {
			nat[n.ID] = n
			nat[strings.ToLower(n.Name)] = n
		}
	}
	var outside []string
	var ev []finding.Evidence
	for _, e := range s.Endpoints {
		n := nat[e.NetworkID]
		if n == nil {
			n = nat[strings.ToLower(e.NetworkName)]
		}
		if e.IsRemote || n == nil || !e.IP.IsValid() || cluster.Contains(e.IP) {
			continue
		}
		outside = append(outside, e.IP.String())
		if len(ev) < 20 {
			ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "VirtualNetworkName / IPAddress",
				Value: n.Name + " / " + e.IP.String(), Expected: "the pod network, an address in " + cluster.String()})
		}
	}
	if len(outside) > 0 {
		ev = append(ev, finding.Evidence{File: s.Facts.ClusterCIDR.Source, Field: "cluster CIDR", Value: cluster.String()})
		issues = append(issues, Issue{Severity: finding.Warn,
			Summary:  fmt.Sprintf("%d local endpoint(s) on the NAT network with addresses outside the cluster CIDR %s: %s — pods if this node runs no Docker containers", len(outside), cluster, strings.Join(firstN(outside, 5), ", ")),
			Evidence: ev, Subjects: []string{"network:nat"}})
	}
	return issues, nil
}

// needCNIConfigOrEndpoints skips a rule that can read either input.
func needCNIConfigOrEndpoints(s *snapshot.Snapshot) error {
	if !s.Has(snapshot.InputCNIConfig) && !s.Has(snapshot.InputHNSEndpoints) {
		return Skip("no %s and no %s", snapshot.InputFiles[snapshot.InputCNIConfig], snapshot.InputFiles[snapshot.InputHNSEndpoints])
	}
	return nil
}

func init() {
	register(&Rule{
		ID: "NAT-03", Title: "Pod endpoint without OutBoundNAT", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks:  "When some local pod endpoints of a network have an OutBoundNAT policy, all of them do.",
		Why:     "A pod created without OutBoundNAT (a CNI race, often the first pods after a large image pull) reaches nothing outside the cluster while its neighbours work; deleting the pod fixes it.",
		Fix:     "Delete the affected pods so the CNI recreates their endpoints; upgrade the CNI plugin if it recurs (Calico fixed a race that skipped the policy).",
		Sources: []string{"https://github.com/projectcalico/calico/issues/12862", "https://github.com/projectcalico/cni-plugin/pull/1069", "https://github.com/rancher/rke2/issues/2362"},
		Check:   checkMissingOutboundNAT,
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go (ApplyOutboundNatPolicy; ApplyLoopbackDSR adds an OutBoundNAT with Destinations, not SNAT)",
			"Calico cni-plugin/internal/pkg/utils/winpol/windows_policy.go CalculateEndpointPolicies (drops OutBoundNAT when the pool has natOutgoing false)",
		},
		Guards: []string{
			"compared per network: a network where no pod has OutBoundNAT (Calico natOutgoing false) is not flagged",
			"an OutBoundNAT with Destinations (loopback DSR) is not counted as the SNAT policy",
			guardPodLocal,
			"endpoints whose policies the input hid are not judged",
			guardLinux,
		},
	})
}

func checkMissingOutboundNAT(s *snapshot.Snapshot) ([]Issue, error) {
	type group struct{ with, without []*snapshot.Endpoint }
	byNet := map[string]*group{}
	var order []string
	for _, e := range localPods(s) {
		if !e.Knows("Policies") {
			continue
		}
		g := byNet[e.NetworkName]
		if g == nil {
			g = &group{}
			byNet[e.NetworkName] = g
			order = append(order, e.NetworkName)
		}
		if e.OutboundNAT != nil && len(e.OutboundNAT.Destinations) == 0 {
			g.with = append(g.with, e)
		} else {
			g.without = append(g.without, e)
		}
	}
	var issues []Issue
	for _, name := range order {
		g := byNet[name]
		if len(g.with) == 0 || len(g.without) == 0 {
			continue
		}
		var ips []string
		var ev []finding.Evidence
		for _, e := range g.without {
			ips = append(ips, e.IP.String())
			if len(ev) < 20 {
				ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "Policies", Value: policyTypes(e), Expected: "an OutBoundNAT policy like " + g.with[0].IP.String() + "'s"})
			}
		}
		issues = append(issues, Issue{Summary: fmt.Sprintf("%d of %d pod endpoints on network %s have no OutBoundNAT and cannot reach outside the cluster: %s",
			len(g.without), len(g.with)+len(g.without), name, strings.Join(firstN(ips, 5), ", ")), Evidence: ev, Subjects: []string{"network:" + name}})
	}
	return issues, nil
}

func init() {
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
}

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

func policyTypes(e *snapshot.Endpoint) string {
	var out []string
	for _, p := range e.Policies {
		out = append(out, p.Type)
	}
	return orNone(out)
}
