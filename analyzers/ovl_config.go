package analyzers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
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

func init() {
	register(&Rule{
		ID: "OVL-08", Title: "Remote pod endpoint points at this node's own address", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints},
		Checks:  "No remote endpoint for a pod address (in the cluster CIDR, outside the service CIDR, the node addresses and this node's pod subnet) has this node's ManagementIP as its ProviderAddress.",
		Why:     "When no RemoteSubnetRoute covers a backend, kube-proxy logs \"Could not find provider address, assuming it is a public IP\" and programs the remote endpoint with its own node IP: service traffic to that backend never leaves for the right node. Service VIP endpoints legitimately carry the node's own address and are not reported.",
		Fix:     "Fix the RemoteSubnetRoutes first (OVL-02), then restart kube-proxy so it recreates its remote endpoints.",
		Sources: []string{"kubernetes pkg/proxy/winkernel/proxier.go (overlay remote endpoint creation)", "https://github.com/kubernetes/enhancements/pull/5112"},
		Check:   checkSelfProviderAddress,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (remote endpoint ProviderAddress from findRemoteSubnetProviderAddress, else the node IP)",
			"kubernetes pkg/proxy/winkernel/hns.go createEndpoint",
		},
		Guards: []string{
			"skipped when the cluster CIDR is unknown",
			"Service VIP endpoints (service CIDR) legitimately carry the node's own address and are excluded",
			"node addresses, addresses outside the cluster CIDR and this node's own pod subnet are excluded",
			"endpoints of another network are excluded; only Overlay networks with a ManagementIP",
			guardLinux,
		},
	})
}

func checkSelfProviderAddress(s *snapshot.Snapshot) ([]Issue, error) {
	cluster := s.Facts.ClusterCIDR.Prefix()
	if !cluster.IsValid() {
		return nil, Skip("the cluster CIDR is not known (kube-proxy --cluster-cidr): service VIP endpoints could not be told from pod endpoints")
	}
	service := s.Facts.ServiceCIDR.Prefix()
	nodeIPs := nodeAddresses(s)
	var issues []Issue
	for _, n := range overlayNetworks(s) {
		if !n.ManagementIP.IsValid() {
			continue
		}
		var bad []string
		var ev []finding.Evidence
		for _, e := range s.Endpoints {
			if !e.IsRemote || e.ProviderAddress != n.ManagementIP || !e.IP.IsValid() ||
				!cluster.Contains(e.IP) || (service.IsValid() && service.Contains(e.IP)) || nodeIPs[e.IP] != "" || n.ContainsAddr(e.IP) {
				continue
			}
			if e.NetworkID != "" && n.ID != "" && !strings.EqualFold(e.NetworkID, n.ID) {
				continue
			}
			bad = append(bad, e.IP.String())
			if len(ev) < 20 {
				ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "Policies[PA]", Value: e.ProviderAddress.String(),
					Expected: "the ProviderAddress of the node that hosts " + e.IP.String(), Note: "MAC " + e.MAC})
			}
		}
		if len(bad) == 0 {
			continue
		}
		ev = append(ev, finding.Evidence{File: n.ManagementIPFile, Object: networkObject(n), Field: n.ManagementIPField, Value: n.ManagementIP.String()},
			finding.Evidence{File: networkFile(n), Object: networkObject(n), Field: "RemoteSubnetRoutes", Value: describeRoutes(n)})
		issues = append(issues, Issue{Summary: fmt.Sprintf("%d remote pod endpoint(s) on %s are sent to this node's own address %s instead of their node: %s — no RemoteSubnetRoute covered them when kube-proxy programmed them",
			len(bad), n.Name, n.ManagementIP, strings.Join(firstN(bad, 5), ", ")), Evidence: ev, Subjects: []string{"network:" + n.Name, "address:" + n.ManagementIP.String()}})
	}
	return issues, nil
}

func init() {
	register(&Rule{
		ID: "OVL-09", Title: "kube-proxy's network missing or misnamed", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSNetworks},
		Checks: "With kube-proxy's flags: its --network-name names exactly one HNS network (kube-proxy looks the name up as it is, no regular expression; without the flag it reads KUBE_NETWORK, which the bundle does not hold); " +
			"HNS has an Overlay or L2Bridge network at all when something shows this host is a Kubernetes node (kube-proxy flags, a pod-network CNI configuration, flannel's net-conf.json, a Node holding one of its addresses) — " +
			"without that evidence a host with only NAT networks is a plain container host (info); networks whose type the input does not show are never taken for NAT, and when no network is shown as Overlay/L2Bridge while some types are not shown the rule is skipped; " +
			"a non-persistent network (Flags & 8) is noted since it disappears on reboot.",
		Why: "When kube-proxy cannot find its network it logs \"Unable to find HNS Network specified, please check network name and CNI deployment\" and retries; when the network disappears or changes it removes every policy it programmed: services stop working on the node while pods keep running.",
		Fix: "Start the CNI agent (flanneld, calico-node, antrea-agent) so it creates the network before kubelet and kube-proxy, and set kube-proxy's --network-name (or KUBE_NETWORK) to the network's exact name " +
			"(flannel: Backend.Name, default flannel.4096 for vxlan and cbr0 for host-gw; Calico: Calico).",
		Sources: []string{"kubernetes pkg/proxy/winkernel/proxier.go (getNetworkName: --network-name, else KUBE_NETWORK; getNetworkInfo retries)", "kubernetes pkg/proxy/winkernel/hns.go (getNetworkByName: hcn.GetNetworkByName, exact name)",
			"flannel pkg/backend/vxlan/vxlan_windows.go, pkg/backend/hostgw/hostgw_windows.go (network names)", "sig-windows-tools hostprocess/flannel/kube-proxy/kube-proxy.yml (KUBE_NETWORK=flannel.4096)",
			"sig-windows-tools hostprocess/calico/kube-proxy/start.ps1 (KUBE_NETWORK overridden to the exact name Calico)",
			"https://github.com/kubernetes-sigs/sig-windows-tools/issues/89", "https://github.com/flannel-io/flannel/issues/1272",
			"https://github.com/kubernetes/kubernetes/issues/79515"},
		Check: checkKubeProxyNetwork,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go (getNetworkName: --network-name, else KUBE_NETWORK; getNetworkInfo retries; cleanupAllPolicies when the network is gone)",
			"kubernetes pkg/proxy/winkernel/hns.go getNetworkByName; microsoft/hcsshim hcn/hcnnetwork.go GetNetworkByName (exact Name filter, no regular expression)",
			"flannel pkg/backend/vxlan/device_windows.go (Flags EnableNonPersistent)",
			"sig-windows-tools hostprocess/calico/kube-proxy/start.ps1 (KUBE_NETWORK overridden to the exact name Calico)",
		},
		Guards: []string{
			"a host with only NAT networks and no Kubernetes evidence (kube-proxy flags, a pod-network CNI configuration, net-conf.json, a Node with its address, collectlogs.ps1 output) is a plain container host: info",
			"containerd's 0-containerd-nat.json alone is not Kubernetes evidence",
			"networks whose type the input does not show are never taken for NAT; with none shown as Overlay/L2Bridge while some types are hidden, the rule is skipped",
			"names are compared ignoring case: whether HNS does is not visible",
			"without --network-name (KUBE_NETWORK is in kube-proxy's environment, not the bundle) the name is not judged",
			"a non-persistent network is only noted (info), and only when its Flags are shown",
			guardLinux,
		},
	})
}

func checkKubeProxyNetwork(s *snapshot.Snapshot) ([]Issue, error) {
	kp := s.KubeProxy
	var names, natNames, unknownNames []string
	for _, n := range s.Networks {
		switch {
		case n.Type == snapshot.TypeUnknown:
			names = append(names, n.Name+" (type not shown)")
			unknownNames = append(unknownNames, n.Name)
		case strings.EqualFold(n.Type, snapshot.TypeNAT):
			names = append(names, fmt.Sprintf("%s (%s)", n.Name, n.Type))
			natNames = append(natNames, n.Name)
		default:
			names = append(names, fmt.Sprintf("%s (%s)", n.Name, n.Type))
		}
	}
	netEv := finding.Evidence{File: s.Inputs[snapshot.InputHNSNetworks], Field: "networks", Value: orNone(names)}
	var podNets []*snapshot.Network
	for _, n := range s.Networks {
		if n.IsOverlayOrBridge() {
			podNets = append(podNets, n)
		}
	}
	k8s := kubernetesEvidence(s)
	if len(podNets) == 0 {
		switch {
		case len(unknownNames) > 0:
			// A record cut before its Type line: it may well be the pod network.
			return nil, Skip("no network is shown as Overlay or L2Bridge, but the type of %s is not shown (the input was cut before its Type line): whether the pod network exists cannot be told",
				strings.Join(firstN(unknownNames, 5), ", "))
		case k8s == "":
			what := "HNS has no networks at all"
			switch {
			case len(natNames) > 0 && len(natNames) == len(s.Networks):
				what = "HNS has only NAT networks (" + strings.Join(natNames, ", ") + ")"
			case len(names) > 0:
				what = "HNS has no Overlay or L2Bridge network, only " + strings.Join(names, ", ")
			}
			return []Issue{{Severity: finding.Info,
				Summary: "not a Kubernetes overlay node: " + what + ", and nothing in the input (kube-proxy flags, a pod-network CNI configuration, flannel's net-conf.json, a Node holding this host's addresses) says it is one",
				Evidence: []finding.Evidence{netEv, {Field: "Kubernetes evidence", Value: "none",
					Note: "no " + snapshot.InputFiles[snapshot.InputKubeProxy] + ", no pod-network CNI configuration, no flannel net-conf.json, no k8s Node with this host's address"}},
				Remediation: "Nothing to do on a plain container host; if this is meant to be a Kubernetes node, start the CNI agent so it creates the pod network."}}, nil
		}
		ev := []finding.Evidence{netEv}
		if k8s != "" {
			ev = append(ev, finding.Evidence{Field: "Kubernetes evidence", Value: k8s})
		}
		return []Issue{{Summary: fmt.Sprintf("HNS has no Overlay or L2Bridge network (only %s) on a Kubernetes node (%s): the CNI agent has not created the pod network", orNone(names), orWhat(k8s, "other networks")),
			Evidence: ev}}, nil
	}
	var issues []Issue
	if kp != nil && kp.NetworkName != "" {
		want := kp.NetworkName
		var matched []*snapshot.Network
		for _, n := range s.Networks {
			if kubeProxyNetworkMatches(want, n.Name) {
				matched = append(matched, n)
			}
		}
		kpEv := finding.Evidence{File: kp.Source, Field: "--network-name", Value: want}
		switch {
		case len(matched) == 0:
			summary := fmt.Sprintf("kube-proxy looks for network %q but HNS has %s: kube-proxy removes its policies and programs no services", want, strings.Join(names, ", "))
			if strings.ContainsAny(want, "*?[(|^$\\") {
				summary += " (kube-proxy takes the name as it is, not as a regular expression)"
			}
			issues = append(issues, Issue{Summary: summary, Evidence: []finding.Evidence{kpEv, netEv}, Subjects: []string{"network:" + want}})
		case len(matched) > 1:
			var m []string
			for _, n := range matched {
				m = append(m, n.Name)
			}
			issues = append(issues, Issue{Summary: fmt.Sprintf("kube-proxy's network %q matches %d networks (%s): it may program services on the wrong one", want, len(matched), strings.Join(m, ", ")),
				Evidence: []finding.Evidence{kpEv, netEv}})
		}
	}
	for _, n := range podNets {
		if n.Flags&hnsFlagNonPersistent != 0 && n.Knows("Flags") {
			issues = append(issues, Issue{Severity: finding.Info,
				Summary:     fmt.Sprintf("network %s is non-persistent (Flags %d): it is gone after a reboot until the CNI agent recreates it, and pods started before that fail", n.Name, n.Flags),
				Evidence:    []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "Flags", Value: fmt.Sprint(n.Flags), Note: "8 = EnableNonPersistent"}},
				Remediation: "Make the CNI agent start before kubelet and kube-proxy after a reboot (service dependencies or the HostProcess DaemonSet's ordering).",
				Subjects:    []string{"network:" + n.Name}})
		}
	}
	return issues, nil
}

// hnsFlagNonPersistent is the network flag flannel sets (EnableNonPersistent):
// the network is gone after a reboot until the agent recreates it.
const hnsFlagNonPersistent = 8

// orWhat is s, or what when s is empty.
func orWhat(s, what string) string {
	if s == "" {
		return what
	}
	return s
}
