package analyzers

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// hnsFlagNonPersistent is the network flag flannel sets (EnableNonPersistent):
// the network is gone after a reboot until the agent recreates it.
const hnsFlagNonPersistent = 8

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
	register(&Rule{
		ID: "SVC-01", Title: "Source VIP missing, invalid or colliding", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints, snapshot.InputKubeProxy},
		Checks:  "On an overlay network kube-proxy has --source-vip; it lies in the network's pod subnet and is not its network, gateway or broadcast address; an HNS endpoint holds it; no pod endpoint also holds it.",
		Why:     "Overlay service traffic is SNATed to the source VIP; without a valid one kube-proxy does not start (\"source-vip flag not set\") or loops on \"An address provided is invalid or reserved (0x803b002f)\", and a pod given the same address breaks both.",
		Fix:     "Give kube-proxy a source VIP reserved from this node's pod subnet: flannel, delete the stale c:\\sourcevip\\sourceVip.json so start.ps1 reserves a new one through host-local IPAM; Calico, use the address of the Calico_ep endpoint. Restart kube-proxy.",
		Sources: []string{"https://github.com/kubernetes/kubernetes/issues/100962", "https://github.com/kubernetes-sigs/sig-windows-tools/issues/71", "https://github.com/rancher/rke2/issues/5704"},
		Check:   checkSourceVIP,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go NewProxier (overlay: \"source-vip flag not set\") and syncProxyRules (newSourceVIP when no endpoint holds the VIP; \"Source Vip endpoint creation failed\")",
			"sig-windows-tools hostprocess/flannel/kube-proxy/start.ps1 (reserves the VIP with host-local IPAM, c:/sourcevip/sourceVip.json)",
			"Calico node/windows-packaging/CalicoWindows/kubernetes/kube-proxy-service.ps1 (--source-vip = Calico_ep's address)",
		},
		Guards: []string{
			"only overlay needs a source VIP: L2Bridge and other types are skipped, as is a missing kube-proxy network (OVL-09's)",
			"an endpoint at the VIP is a pod only when local with OutBoundNAT or DNS settings: kube-proxy's own endpoint and Calico_ep are fine",
			guardLinux,
		},
	})
}

// kubeProxyNetworkMatches: kube-proxy looks its network up by name as it is
// (hcn.GetNetworkByName; no regular expression: Calico's KUBE_NETWORK regex is
// for felix, and its kube-proxy script sets the exact name). HNS does the
// comparison; whether it ignores case is not visible, so case is not judged.
func kubeProxyNetworkMatches(want, name string) bool {
	return strings.EqualFold(want, name)
}

// cniIsPodNetwork: a readable CNI configuration for a pod network, not one
// that attaches containers to the Windows NAT network (containerd's
// 0-containerd-nat.json, which a plain containerd host has too).
func cniIsPodNetwork(c *snapshot.CNIConfig) bool {
	return c.Invalid == "" && len(c.Plugins) > 0 && !c.IsNAT()
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

// orWhat is s, or what when s is empty.
func orWhat(s, what string) string {
	if s == "" {
		return what
	}
	return s
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func checkSourceVIP(s *snapshot.Snapshot) ([]Issue, error) {
	var n *snapshot.Network
	for _, o := range overlayNetworks(s) {
		if s.KubeProxy.NetworkName == "" || kubeProxyNetworkMatches(s.KubeProxy.NetworkName, o.Name) {
			n = o
			break
		}
	}
	if n == nil {
		for _, o := range s.Networks {
			if kubeProxyNetworkMatches(s.KubeProxy.NetworkName, o.Name) {
				return nil, Skip("kube-proxy's network %s is %s, not Overlay; only overlay needs a source VIP", o.Name, o.Type)
			}
		}
		if len(overlayNetworks(s)) > 0 {
			return nil, Skip("kube-proxy's network %q does not exist (see OVL-09)", s.KubeProxy.NetworkName)
		}
		return nil, Skip("no Overlay network; only overlay needs a source VIP")
	}
	kpEv := finding.Evidence{File: s.KubeProxy.Source, Field: "--source-vip", Value: s.KubeProxy.SourceVIP, Expected: "an address reserved from " + subnetsOf(n)}
	raw := strings.TrimSpace(s.KubeProxy.SourceVIP)
	if raw == "" {
		return []Issue{{Summary: fmt.Sprintf("kube-proxy runs on overlay network %s without --source-vip: it cannot start its proxier (\"source-vip flag not set\")", n.Name),
			Evidence: []finding.Evidence{kpEv}}}, nil
	}
	vip, err := netip.ParseAddr(raw)
	if err != nil {
		return []Issue{{Summary: fmt.Sprintf("kube-proxy's --source-vip %q is not an IP address", raw), Evidence: []finding.Evidence{kpEv}}}, nil
	}
	var in *snapshot.Subnet
	for i := range n.Subnets {
		if n.Subnets[i].Prefix.Contains(vip) {
			in = &n.Subnets[i]
		}
	}
	if in == nil {
		return []Issue{{Summary: fmt.Sprintf("source VIP %s is outside network %s's pod subnet %s: HNS refuses it (0x803b002f) — a stale sourceVip.json from before a pod CIDR change?", vip, n.Name, subnetsOf(n)),
			Evidence: []finding.Evidence{kpEv, {File: networkFile(n), Object: networkObject(n), Field: "Subnets", Value: subnetsOf(n)}}, Subjects: []string{"address:" + vip.String()}}}, nil
	}
	p := in.Prefix.Masked()
	if vip == p.Addr() || vip == in.Gateway || vip == lastAddr(p) {
		return []Issue{{Summary: fmt.Sprintf("source VIP %s is the network, gateway or broadcast address of %s", vip, p),
			Evidence: []finding.Evidence{kpEv}, Subjects: []string{"address:" + vip.String()}}}, nil
	}
	var holders, pods []*snapshot.Endpoint
	for _, e := range s.Endpoints {
		if e.IP != vip {
			continue
		}
		holders = append(holders, e)
		if !e.IsRemote && (e.OutboundNAT != nil || len(e.DNSServers) > 0) {
			pods = append(pods, e)
		}
	}
	switch {
	case len(holders) == 0:
		return []Issue{{Summary: fmt.Sprintf("no HNS endpoint holds the source VIP %s: kube-proxy has not created it (look for \"Source Vip endpoint creation failed\" in its log)", vip),
			Evidence: []finding.Evidence{kpEv, {File: s.Inputs[snapshot.InputHNSEndpoints], Field: "IPAddress", Value: "no endpoint with " + vip.String()}}, Subjects: []string{"address:" + vip.String()}}}, nil
	case len(pods) > 0:
		var ev []finding.Evidence
		for _, e := range pods {
			ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "IPAddress", Value: vip.String(), Note: "a pod endpoint (" + e.Name + ")"})
		}
		return []Issue{{Summary: fmt.Sprintf("the source VIP %s is also a pod's address: the address was not reserved in IPAM, so service traffic and that pod collide", vip),
			Evidence: append([]finding.Evidence{kpEv}, ev...), Subjects: []string{"address:" + vip.String()}}}, nil
	}
	return nil, nil
}

func subnetsOf(n *snapshot.Network) string {
	var out []string
	for _, p := range n.Prefixes() {
		out = append(out, p.String())
	}
	return orNone(out)
}

// lastAddr is a prefix's broadcast address.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	host := len(b)*8 - p.Bits()
	for i := len(b) - 1; i >= 0 && host > 0; i-- {
		n := min(host, 8)
		b[i] |= byte(1<<n - 1)
		host -= n
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func init() {
	register(&Rule{
		ID: "HOST-04", Title: "kube-proxy's node name is not this node's", Severity: finding.Fail, WindowsOnly: true,
		Needs:   []snapshot.Input{snapshot.InputKubeProxy, snapshot.InputKubeNodes},
		Checks:  "The name kube-proxy runs as (--hostname-override, else the lower-cased host name) is the name of the Kubernetes Node that holds this host's addresses.",
		Why:     "kube-proxy tells local from remote endpoints by node name: with the wrong one it treats this node's pods as remote, programs them with the wrong provider address and deletes the endpoints it believes are not local (\"vNICs and HNS endpoints of containers are being deleted\").",
		Fix:     "Start kube-proxy with --hostname-override set to the Node's name (the same value kubelet uses, often $(hostname).ToLower() or NODE_NAME), then restart it.",
		Sources: []string{"kubernetes.io Windows debugging tips (hostname-override)", "https://github.com/Azure/AgentBaker/pull/2233", "https://github.com/kubernetes/kubernetes/pull/139503"},
		Check:   checkKubeProxyNodeName,
		Upstream: []string{
			"kubernetes cmd/kube-proxy/app/server.go (node name: --hostname-override, else the host name lower-cased)",
			"kubernetes pkg/proxy/endpointslicecache.go (an endpoint is local when its nodeName is kube-proxy's host name)",
		},
		Guards: []string{
			"skipped when kube-proxy has no --hostname-override and the host name is not known",
			"the host name is lower-cased as kube-proxy does",
			"a name that is a Node of the cluster passes, unless another Node holds this host's addresses",
			guardLinux,
		},
	})
}

func checkKubeProxyNodeName(s *snapshot.Snapshot) ([]Issue, error) {
	kp := s.KubeProxy
	name, from := kp.Hostname, kp.Source+" --hostname-override"
	if name == "" {
		if s.OS == nil || s.OS.Hostname == "" {
			return nil, Skip("kube-proxy has no --hostname-override and the host name is not known (%s)", snapshot.InputFiles[snapshot.InputOS])
		}
		name, from = strings.ToLower(s.OS.Hostname), s.OS.HostnameFrom+" (lower-cased: kube-proxy's default without --hostname-override)"
	}
	var self *snapshot.KubeNode
	for _, k := range s.KubeNodes {
		for _, ip := range k.InternalIPs {
			if s.AdapterWithAddr(ip) != nil {
				self = k
			}
		}
	}
	for _, k := range s.KubeNodes {
		if k.Name == name {
			if self != nil && self != k {
				break // the name belongs to another node
			}
			return nil, nil
		}
	}
	ev := []finding.Evidence{{File: kp.Source, Field: "node name", Value: name, Note: from}}
	summary := fmt.Sprintf("kube-proxy runs as node %q, which is not a Node of the cluster: it takes this node's pods for remote ones", name)
	if self != nil {
		summary = fmt.Sprintf("kube-proxy runs as node %q but this host is Node %q (it holds %s): kube-proxy takes this node's pods for remote ones", name, self.Name, joinAddrs(self.InternalIPs))
		ev[0].Expected = self.Name
		ev = append(ev, finding.Evidence{File: s.Inputs[snapshot.InputKubeNodes], Object: "node " + self.Name, Field: "status.addresses InternalIP", Value: joinAddrs(self.InternalIPs)})
	}
	return []Issue{{Summary: summary, Evidence: ev, Subjects: []string{"node:" + name}}}, nil
}
