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
		Needs:  []snapshot.Input{snapshot.InputHNSNetworks},
		Checks: "With kube-proxy's flags: its --network-name (or KUBE_NETWORK) names exactly one HNS network (Calico's name is a regular expression); HNS has an Overlay or L2Bridge network at all; a non-persistent network (Flags & 8) is noted since it disappears on reboot.",
		Why:    "When kube-proxy cannot find its network it logs \"Unable to find HNS Network specified by ...\" and removes every policy it programmed: services stop working on the node while pods keep running.",
		Fix:    "Start the CNI agent (flanneld, calico-node, antrea-agent) so it creates the network before kubelet and kube-proxy, and set kube-proxy's --network-name to the network's name (flannel: vxlan0 or cbr0 as Backend.Name says; Calico: Calico).",
		Sources: []string{"https://github.com/kubernetes-sigs/sig-windows-tools/issues/89", "https://github.com/flannel-io/flannel/issues/1272",
			"https://github.com/kubernetes/kubernetes/issues/79515"},
		Check: checkKubeProxyNetwork,
	})
	register(&Rule{
		ID: "SVC-01", Title: "Source VIP missing, invalid or colliding", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints, snapshot.InputKubeProxy},
		Checks:  "On an overlay network kube-proxy has --source-vip; it lies in the network's pod subnet and is not its network, gateway or broadcast address; an HNS endpoint holds it; no pod endpoint also holds it.",
		Why:     "Overlay service traffic is SNATed to the source VIP; without a valid one kube-proxy does not start (\"source-vip flag not set\") or loops on \"An address provided is invalid or reserved (0x803b002f)\", and a pod given the same address breaks both.",
		Fix:     "Give kube-proxy a source VIP reserved from this node's pod subnet: flannel, delete the stale c:\\sourcevip\\sourceVip.json so start.ps1 reserves a new one through host-local IPAM; Calico, use the address of the Calico_ep endpoint. Restart kube-proxy.",
		Sources: []string{"https://github.com/kubernetes/kubernetes/issues/100962", "https://github.com/kubernetes-sigs/sig-windows-tools/issues/71", "https://github.com/rancher/rke2/issues/5704"},
		Check:   checkSourceVIP,
	})
}

// kubeProxyNetworkMatches: kube-proxy matches Calico's network name as a
// regular expression prefix, everything else by exact name.
func kubeProxyNetworkMatches(want, name string) bool {
	if strings.HasPrefix(strings.ToLower(want), "calico") {
		return strings.HasPrefix(strings.ToLower(name), "calico")
	}
	return name == want
}

func checkKubeProxyNetwork(s *snapshot.Snapshot) ([]Issue, error) {
	kp := s.KubeProxy
	var names []string
	for _, n := range s.Networks {
		names = append(names, fmt.Sprintf("%s (%s)", n.Name, n.Type))
	}
	netEv := finding.Evidence{File: s.Inputs[snapshot.InputHNSNetworks], Field: "networks", Value: strings.Join(names, ", ")}
	var podNets []*snapshot.Network
	for _, n := range s.Networks {
		if n.IsOverlayOrBridge() {
			podNets = append(podNets, n)
		}
	}
	if len(podNets) == 0 {
		return []Issue{{Summary: fmt.Sprintf("HNS has no Overlay or L2Bridge network (only %s): the CNI agent has not created the pod network", orNone(names)),
			Evidence: []finding.Evidence{netEv}}}, nil
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
			issues = append(issues, Issue{Summary: fmt.Sprintf("kube-proxy looks for network %q but HNS has %s: kube-proxy removes its policies and programs no services", want, strings.Join(names, ", ")),
				Evidence: []finding.Evidence{kpEv, netEv}, Subjects: []string{"network:" + want}})
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
	for _, s := range n.Subnets {
		if s.Prefix.IsValid() {
			out = append(out, s.Prefix.String())
		}
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
