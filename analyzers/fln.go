package analyzers

import (
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// flannel on Windows: the smallest VNI it accepts and the MAC prefix form.
const flannelWindowsMinVNI = 4096

var flannelMacPrefix = regexp.MustCompile(`^[0-9A-Fa-f]{2}-[0-9A-Fa-f]{2}$`)

func init() {
	register(&Rule{
		ID: "FLN-01", Title: "flannel configuration that Windows refuses or that names differ", Severity: finding.Fail, WindowsOnly: true, OnlyFor: cniFlannel,
		Needs: []snapshot.Input{snapshot.InputFlannelConfig},
		Checks: "For the vxlan backend: VNI unset or at least 4096, no DirectRouting, no GBP, MacPrefix of the form xx-xx. " +
			"The HNS network name flannel creates is Backend.Name, else flannel.<VNI> (flannel.4096 by default) for vxlan and cbr0 for host-gw; " +
			"with HNS networks in the bundle, the network flannel really created (the one of that name, else the only Overlay/L2Bridge network of the backend's type) is what " +
			"the CNI configuration the runtime uses (flannel → win-overlay/sdnoverlay/win-bridge/sdnbridge look the network up by the file's name) and kube-proxy's --network-name must name (fail); " +
			"without HNS networks they are compared with the name net-conf.json gives (warn); a net-conf.json whose name differs from the network flanneld created is noted (info). " +
			"kube-proxy started without --network-name reads KUBE_NETWORK from its environment, which the bundle does not hold: not judged.",
		Why: "flanneld on Windows exits on each of those settings (\"VNI [..] must be greater than or equal to 4096 on Windows\", \"DirectRouting is not supported on Windows\"); " +
			"the CNI plugin and kube-proxy find the network by name only, so with a name HNS does not have every pod creation fails (\"network .. not found\") and kube-proxy programs no services.",
		Fix: "Correct the kube-flannel-cfg ConfigMap (VNI 4096, Port 4789, no DirectRouting or GBP) for Linux and Windows alike and restart flanneld; " +
			"set the CNI file's \"name\" and kube-proxy's --network-name (or KUBE_NETWORK) to the HNS network flannel created (flannel.4096 unless Backend.Name says otherwise; cbr0 for host-gw).",
		Sources: []string{"flannel pkg/backend/vxlan/vxlan_windows.go (defaults VNI 4096, name flannel.<VNI>; the checks)", "flannel pkg/backend/vxlan/device_windows.go (Overlay network of that name)",
			"flannel pkg/backend/hostgw/hostgw_windows.go (L2Bridge network, default name cbr0)", "flannel-io/cni-plugin flannel_windows.go (delegate gets the conf's name)",
			"containernetworking/plugins plugins/main/windows/win-overlay/win-overlay_windows.go (GetHNSNetworkByName(n.Name))",
			"sig-windows-tools hostprocess/flannel/flanneld/flannel-overlay.yml (CNI name flannel.4096)", "sig-windows-tools hostprocess/flannel/kube-proxy/kube-proxy.yml (KUBE_NETWORK=flannel.4096)",
			"https://github.com/kubernetes-sigs/sig-windows-tools/pull/301", "https://github.com/microsoft/SDN/issues/244"},
		Check: checkFlannelConfig,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go RegisterNetwork (defaults VNI 4096, Port 4789, MacPrefix 0E-2A; rejects VNI < 4096, Port != 4789, DirectRouting, GBP, MacPrefix not xx-xx; network name Backend.Name, else flannel.<VNI>)",
			"flannel pkg/backend/hostgw/hostgw_windows.go (L2Bridge network, default name cbr0)",
			"containernetworking/plugins plugins/main/windows/win-overlay/win-overlay_windows.go (looks the HNS network up by the configuration's name)",
			"kubernetes pkg/proxy/winkernel/hns.go getNetworkByName (kube-proxy's --network-name, else KUBE_NETWORK)",
			"sig-windows-tools hostprocess/flannel/flanneld/flannel-overlay.yml and hostprocess/flannel/kube-proxy/kube-proxy.yml (flannel.4096 in the CNI configuration and KUBE_NETWORK)",
		},
		Guards: []string{
			"names are compared ignoring case, as OVL-09 does: whether HNS does is not visible",
			guardFlannel + "; " + guardLinux,
			"an unset VNI or MacPrefix is fine: flannel's defaults (4096, 0E-2A) are valid",
			"the expected name follows flannel: Backend.Name, else flannel.<VNI> (VNI 4096 when unset) for vxlan, cbr0 for host-gw",
			"with HNS networks the network flannel really created is the reference (fail); without them the name net-conf.json gives is (warn)",
			"a net-conf.json name that differs from the network flanneld created is only noted (info)",
			"kube-proxy without --network-name reads KUBE_NETWORK from its environment, which the bundle does not hold: not judged",
			"the CNI configuration compared is the first readable non-NAT one, and only when it is flannel, win-overlay, sdnoverlay, win-bridge or sdnbridge (a NAT one read first is NAT-05's)",
			"the External bootstrap network is never taken for flannel's",
		},
	})
	register(&Rule{
		ID: "FLN-02", Title: "flannel host-gw routes or bridge endpoint missing", Severity: finding.Fail, OnlyFor: cniFlannel,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHostRoutes, snapshot.InputKubeNodes},
		Checks:  "On a flannel host-gw (L2Bridge) node, every other host-gw node's pod CIDR has a host route via that node's InternalIP; the <network>_ep bridge endpoint exists once (warn).",
		Why:     "host-gw sends pod traffic to peers by plain routing: a peer's pod subnet without a route is unreachable, and after a flanneld restart the routes or the bridge endpoint are often not re-added (\"failed to hot attach bridge HNSEndpoint cbr0_ep\").",
		Fix:     "Remove the stale bridge endpoint (Get-HnsEndpoint | ? Name -eq \"cbr0_ep\" | Remove-HnsEndpoint) and restart flanneld so it recreates the endpoint and the routes; upgrade flannel if it recurs.",
		Sources: []string{"https://github.com/flannel-io/flannel/issues/1208", "https://github.com/flannel-io/flannel/issues/1391", "https://github.com/kubernetes-sigs/sig-windows-tools/issues/94"},
		Check:   checkHostGW,
		Upstream: []string{
			"flannel pkg/backend/hostgw/hostgw_windows.go (L2Bridge network cbr0 and its <network>_ep bridge endpoint, host-attached)",
			"flannel pkg/backend/route_network_windows.go (a host route per peer pod subnet via the peer's PublicIP)",
		},
		Guards: []string{
			guardFlannel,
			"only flannel host-gw (L2Bridge) nodes; a node without one has no routes to miss",
			"only peers whose flannel backend-type annotation is host-gw; peers without an InternalIP are skipped",
			guardSelf,
			"the bridge endpoint is counted only with HNS endpoints in the bundle, and a wrong count is a warning",
		},
	})
}

func checkFlannelConfig(s *snapshot.Snapshot) ([]Issue, error) {
	f := s.Flannel
	var issues []Issue
	bad := func(field, value, expected, summary string) {
		issues = append(issues, Issue{Summary: summary, Evidence: []finding.Evidence{{File: f.File, Field: field, Value: value, Expected: expected}}})
	}
	vxlan := strings.EqualFold(f.BackendType, "vxlan")
	if vxlan {
		if f.VNI != 0 && f.VNI < flannelWindowsMinVNI {
			bad("Backend.VNI", strconv.Itoa(f.VNI), "4096 or more", fmt.Sprintf("flannel's VNI is %d: flanneld on Windows refuses VNIs below 4096", f.VNI))
		}
		if f.DirectRouting {
			bad("Backend.DirectRouting", "true", "false", "flannel's DirectRouting is on: flanneld on Windows refuses it")
		}
		if f.GBP {
			bad("Backend.GBP", "true", "false", "flannel's GBP is on: flanneld on Windows refuses it")
		}
		if f.MacPrefix != "" && !flannelMacPrefix.MatchString(f.MacPrefix) {
			bad("Backend.MacPrefix", f.MacPrefix, "xx-xx", fmt.Sprintf("flannel's MacPrefix %q is not of the form xx-xx: flanneld on Windows refuses it", f.MacPrefix))
		}
	}
	issues = append(issues, checkFlannelNames(s)...)
	return issues, nil
}

// flannelNetworkName is the HNS network flanneld on Windows creates from
// net-conf.json (Backend.Name; else flannel.<VNI> for vxlan, VNI 4096 unless
// set, and cbr0 for host-gw), where that comes from, and the network type;
// "" for a backend flannel on Windows does not have.
func flannelNetworkName(f *snapshot.FlannelNetConf) (name, from, typ string) {
	switch {
	case strings.EqualFold(f.BackendType, "vxlan"):
		typ = snapshot.TypeOverlay
	case strings.EqualFold(f.BackendType, "host-gw"):
		typ = snapshot.TypeL2Bridge
	}
	switch {
	case f.BackendName != "":
		return f.BackendName, f.File + " Backend.Name", typ
	case typ == snapshot.TypeOverlay:
		vni := f.VNI
		if vni == 0 {
			vni = flannelWindowsMinVNI
			return fmt.Sprintf("flannel.%d", vni), f.File + " (no Backend.Name or VNI: flannel.<VNI> with VNI 4096, flannel's vxlan default on Windows)", typ
		}
		return fmt.Sprintf("flannel.%d", vni), f.File + " (no Backend.Name: flannel.<VNI>, flannel's vxlan default on Windows)", typ
	case typ == snapshot.TypeL2Bridge:
		return "cbr0", f.File + " (no Backend.Name: cbr0, flannel's host-gw default on Windows)", typ
	}
	return "", "", typ
}

// flannelHNSNetwork is the network flanneld created: the one of the name it
// uses, else the only Overlay/L2Bridge network of the backend's type (the
// External bootstrap network aside), else the only flannel-named one.
func flannelHNSNetwork(s *snapshot.Snapshot, want, typ string) *snapshot.Network {
	if want != "" {
		for _, n := range s.Networks {
			if strings.EqualFold(n.Name, want) {
				return n
			}
		}
	}
	var cands, named []*snapshot.Network
	for _, n := range s.Networks {
		if !n.IsOverlayOrBridge() || strings.EqualFold(n.Name, "External") || (typ != "" && n.Type != typ) {
			continue
		}
		cands = append(cands, n)
		if l := strings.ToLower(n.Name); strings.HasPrefix(l, "flannel") || l == "vxlan0" || l == "cbr0" {
			named = append(named, n)
		}
	}
	switch {
	case len(cands) == 1:
		return cands[0]
	case len(named) == 1:
		return named[0]
	}
	return nil
}

// flannelCNIPlugins look the HNS network up by the configuration's name: the
// flannel meta plugin hands its name to the delegate.
var flannelCNIPlugins = []string{"flannel", "win-overlay", "sdnoverlay", "win-bridge", "sdnbridge"}

// flannelCNIConfig is the configuration the runtime uses for pods (the first
// readable, non-NAT file; NAT-05 reports a NAT one read first) when it is a
// flannel or win-overlay/sdnoverlay/win-bridge/sdnbridge one.
func flannelCNIConfig(s *snapshot.Snapshot) *snapshot.CNIConfig {
	for _, c := range s.CNIConfigs {
		if c.Invalid != "" || len(c.Plugins) == 0 || c.IsNAT() {
			continue
		}
		if slices.ContainsFunc(c.Plugins, func(p string) bool { return slices.Contains(flannelCNIPlugins, strings.ToLower(p)) }) {
			return c
		}
		return nil
	}
	return nil
}

// checkFlannelNames: the names the CNI plugin and kube-proxy look up against
// the network flannel created (or, without HNS networks in the bundle, the
// one net-conf.json makes it create).
func checkFlannelNames(s *snapshot.Snapshot) []Issue {
	f := s.Flannel
	want, wantFrom, typ := flannelNetworkName(f)
	var actual *snapshot.Network
	if s.Has(snapshot.InputHNSNetworks) {
		actual = flannelHNSNetwork(s, want, typ)
	}
	var issues []Issue
	target, sev := want, finding.Warn
	ev := []finding.Evidence{{File: f.File, Field: "Backend.Name", Value: want, Note: wantFrom}}
	what := fmt.Sprintf("net-conf.json makes flannel create HNS network %q", want)
	if actual != nil {
		target, sev = actual.Name, finding.Fail
		ev = []finding.Evidence{{File: networkFile(actual), Object: networkObject(actual), Field: "Name", Value: actual.Name, Note: "the " + actual.Type + " network flannel created"}}
		what = fmt.Sprintf("flannel's HNS network is %q", actual.Name)
		if want != "" && !strings.EqualFold(actual.Name, want) {
			issues = append(issues, Issue{Severity: finding.Info,
				Summary: fmt.Sprintf("%s gives flannel's network name as %q but HNS's flannel network is %q: flanneld ran with another configuration, and on its next start it creates %q instead",
					path.Base(f.File), want, actual.Name, want),
				Evidence:    append([]finding.Evidence{{File: f.File, Field: "Backend.Name", Value: want, Note: wantFrom}}, ev...),
				Remediation: "Make net-conf.json's Backend.Name (or its VNI) give the network name the CNI configuration and kube-proxy use, so that a flanneld restart keeps it.",
				Subjects:    []string{"network:" + actual.Name}})
		}
	}
	if target == "" {
		return issues
	}
	var differ []string
	if c := flannelCNIConfig(s); c != nil && !strings.EqualFold(c.Name, target) {
		differ = append(differ, fmt.Sprintf("%s names %q", path.Base(c.File), c.Name))
		ev = append(ev, finding.Evidence{File: c.File, Field: "name", Value: c.Name, Expected: target, Note: "the CNI plugin (" + strings.Join(c.Plugins, " → ") + ") looks the HNS network up by this name"})
	}
	if kp := s.KubeProxy; kp != nil && kp.NetworkName != "" && !strings.EqualFold(kp.NetworkName, target) {
		differ = append(differ, fmt.Sprintf("kube-proxy's --network-name is %q", kp.NetworkName))
		ev = append(ev, finding.Evidence{File: kp.Source, Field: "--network-name", Value: kp.NetworkName, Expected: target})
	}
	if len(differ) == 0 {
		return issues
	}
	effect := "they look up a network HNS does not have: pod creation fails and kube-proxy programs no services"
	if actual == nil {
		effect = "once flannel has created it, they look up a network HNS does not have"
	}
	return append(issues, Issue{Severity: sev, Summary: fmt.Sprintf("%s but %s: %s", what, strings.Join(differ, " and "), effect), Evidence: ev,
		Subjects: []string{"network:" + target}})
}

func checkHostGW(s *snapshot.Snapshot) ([]Issue, error) {
	var bridge *snapshot.Network
	for _, n := range cniNetworks(s) {
		if strings.EqualFold(n.Type, snapshot.TypeL2Bridge) && flavorOf(s, n) == cniFlannel {
			bridge = n
		}
	}
	if bridge == nil {
		return nil, nil // not a host-gw node: no routes to miss
	}
	// Next hops per destination, so that 1,000 peers are not each matched
	// against every route.
	via := map[netip.Prefix][]netip.Addr{}
	for _, r := range s.Routes {
		d := r.Destination.Masked()
		via[d] = append(via[d], r.NextHop)
	}
	var issues []Issue
	for _, node := range s.KubeNodes {
		if isSelfNode(s, bridge, node) || len(node.InternalIPs) == 0 {
			continue
		}
		if bt := node.Annotations.Get(snapshot.AnnotationFlannelBackendType); !strings.EqualFold(bt, "host-gw") {
			continue // only host-gw peers are reached by plain routes
		}
		for _, p := range node.PodCIDRs {
			if slices.ContainsFunc(via[p.Masked()], func(hop netip.Addr) bool { return slices.Contains(node.InternalIPs, hop) }) {
				continue
			}
			issues = append(issues, Issue{Summary: fmt.Sprintf("no host route for node %s's pod subnet %s via %s: pods there are unreachable from this node's pods", node.Name, p, joinAddrs(node.InternalIPs)),
				Evidence: []finding.Evidence{{File: s.Inputs[snapshot.InputHostRoutes], Field: "routes", Value: "none for " + p.String(), Expected: p.String() + " via " + joinAddrs(node.InternalIPs)},
					{File: s.Inputs[snapshot.InputKubeNodes], Object: "node " + node.Name, Field: "spec.podCIDRs", Value: p.String()}},
				Subjects: []string{"node:" + node.Name, "prefix:" + p.String()}})
		}
	}
	if s.Has(snapshot.InputHNSEndpoints) {
		name := strings.ToLower(bridge.Name + "_ep")
		var eps []*snapshot.Endpoint
		for _, e := range s.Endpoints {
			if strings.ToLower(e.Name) == name {
				eps = append(eps, e)
			}
		}
		if len(eps) != 1 {
			issues = append(issues, Issue{Severity: finding.Warn,
				Summary:  fmt.Sprintf("network %s has %d %s_ep bridge endpoints, not one: the host cannot reach its own pods the flannel way, and a flanneld restart fails to attach it", bridge.Name, len(eps), bridge.Name),
				Evidence: []finding.Evidence{{File: s.Inputs[snapshot.InputHNSEndpoints], Field: "Name", Value: fmt.Sprintf("%d × %s_ep", len(eps), bridge.Name), Expected: "exactly one"}},
				Subjects: []string{"network:" + bridge.Name}})
		}
	}
	return issues, nil
}
