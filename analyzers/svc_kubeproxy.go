package analyzers

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
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
