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
	register(&Rule{
		ID: "OVL-04", Title: "VXLAN UDP port is not 4789", Severity: finding.Fail,
		Checks:  "flannel's net-conf.json Backend.Port is unset or 4789 when the backend is vxlan; a Linux node's VXLAN device sends to 4789 when the cluster has Windows nodes; an HNS overlay network with a VxlanPort other than 4789 is reported (warn) since every peer must match it.",
		Why:     "Windows flannel only supports UDP 4789; Linux flannel defaults to 8472, and a cluster-wide 8472 leaves Windows nodes unable to exchange VXLAN with Linux ones (flannel on Windows refuses to start: \"Port [8472] is not supported on Windows\").",
		Fix:     "Set \"Port\": 4789 in the Backend section of flannel's net-conf.json cluster-wide and restart flanneld on every node.",
		Sources: []string{"flannel Documentation/backends.md (vxlan Port: on Windows must be 4789)", "https://github.com/poseidon/typhoon/pull/1561"},
		Check:   checkVXLANPort,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (Port must be 4789 on Windows)",
			"flannel Documentation/backends.md (vxlan Port: Linux default is the kernel's 8472)",
			"microsoft/hcsshim hcn/hcnglobals.go (VxlanPortVersion: a custom VXLAN port since HNS 10.3)",
		},
		Guards: []string{
			"an unset Backend.Port is fine (4789 on Windows)",
			"a Linux-only cluster may use any port: flannel's port and Linux VXLAN devices are judged only when Windows nodes may be in the cluster",
			"an HNS VxlanPort other than 4789 is a warning: it works when every peer uses it",
			"skipped without net-conf.json, HNS networks and Linux VXLAN devices",
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

func checkVXLANPort(s *snapshot.Snapshot) ([]Issue, error) {
	if s.Flannel == nil && len(s.Networks) == 0 && s.Linux == nil {
		return nil, Skip("no %s, no HNS networks and no Linux VXLAN devices", snapshot.InputFiles[snapshot.InputFlannelConfig])
	}
	// A Linux-only cluster may use any port; only Windows peers need 4789.
	linuxOnly := s.Linux != nil && len(s.KubeNodes) > 0 && !hasWindowsNode(s)
	var issues []Issue
	if f := s.Flannel; f != nil && strings.EqualFold(f.BackendType, "vxlan") && f.Port != 0 && f.Port != 4789 && !linuxOnly {
		issues = append(issues, Issue{Summary: fmt.Sprintf("flannel's VXLAN port is %d: Windows nodes only speak UDP 4789, so Linux and Windows nodes cannot reach each other's pods", f.Port),
			Evidence: []finding.Evidence{{File: f.File, Field: "Backend.Port", Value: strconv.Itoa(f.Port), Expected: "4789 (or unset on Windows)"}}})
	}
	for _, n := range overlayNetworks(s) {
		if n.VxlanPort != 0 && n.VxlanPort != 4789 {
			issues = append(issues, Issue{Severity: finding.Warn,
				Summary:     fmt.Sprintf("network %s encapsulates to UDP %d, not 4789: every peer, Linux ones included, must use the same port", n.Name, n.VxlanPort),
				Evidence:    []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "VxlanPort", Value: strconv.Itoa(n.VxlanPort), Expected: "4789, or the port all nodes use"}},
				Remediation: "Keep the custom port only if every node uses it (OVN hybrid overlay: hybridOverlayVXLANPort); otherwise recreate the network without VxlanPort.",
				Subjects:    []string{"network:" + n.Name}})
		}
	}
	if s.Linux != nil && hasWindowsNode(s) {
		for _, l := range s.Linux.Links {
			if l.VXLAN != nil && l.VXLAN.Port != 0 && l.VXLAN.Port != 4789 {
				issues = append(issues, Issue{Summary: fmt.Sprintf("VXLAN device %s sends to UDP %d while the cluster has Windows nodes, which only receive on 4789", l.Name, l.VXLAN.Port),
					Evidence: []finding.Evidence{{File: s.Inputs[snapshot.InputLinux], Object: "link " + l.Name, Field: "linkinfo.info_data.port", Value: strconv.FormatInt(l.VXLAN.Port, 10), Expected: "4789"}}})
			}
		}
	}
	return issues, nil
}

func hasWindowsNode(s *snapshot.Snapshot) bool {
	return slices.ContainsFunc(s.KubeNodes, (*snapshot.KubeNode).IsWindows)
}

// needCNIConfigOrEndpoints skips a rule that can read either input.
func needCNIConfigOrEndpoints(s *snapshot.Snapshot) error {
	if !s.Has(snapshot.InputCNIConfig) && !s.Has(snapshot.InputHNSEndpoints) {
		return Skip("no %s and no %s", snapshot.InputFiles[snapshot.InputCNIConfig], snapshot.InputFiles[snapshot.InputHNSEndpoints])
	}
	return nil
}
