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
		Needs:   []snapshot.Input{snapshot.InputFlannelConfig},
		Checks:  "For the vxlan backend: VNI unset or at least 4096, no DirectRouting, no GBP, MacPrefix of the form xx-xx; and the HNS network name flannel creates (Backend.Name, default vxlan0/cbr0), the flannel CNI file's name and kube-proxy's --network-name agree.",
		Why:     "flanneld on Windows exits on each of those settings (\"VNI must be greater than or equal to 4096 on Windows\", \"DirectRouting is not supported on Windows\"); with names that differ, the CNI plugin or kube-proxy look for a network that does not exist.",
		Fix:     "Correct the kube-flannel-cfg ConfigMap (VNI 4096, Port 4789, no DirectRouting or GBP) for Linux and Windows alike, keep the CNI file's name and kube-proxy's --network-name equal to Backend.Name, and restart flanneld.",
		Sources: []string{"flannel pkg/backend/vxlan/vxlan_windows.go", "https://github.com/kubernetes-sigs/sig-windows-tools/pull/301", "https://github.com/microsoft/SDN/issues/244"},
		Check:   checkFlannelConfig,
	})
	register(&Rule{
		ID: "FLN-02", Title: "flannel host-gw routes or bridge endpoint missing", Severity: finding.Fail, OnlyFor: cniFlannel,
		Needs:   []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHostRoutes, snapshot.InputKubeNodes},
		Checks:  "On a flannel host-gw (L2Bridge) node, every other host-gw node's pod CIDR has a host route via that node's InternalIP; the <network>_ep bridge endpoint exists once (warn).",
		Why:     "host-gw sends pod traffic to peers by plain routing: a peer's pod subnet without a route is unreachable, and after a flanneld restart the routes or the bridge endpoint are often not re-added (\"failed to hot attach bridge HNSEndpoint cbr0_ep\").",
		Fix:     "Remove the stale bridge endpoint (Get-HnsEndpoint | ? Name -eq \"cbr0_ep\" | Remove-HnsEndpoint) and restart flanneld so it recreates the endpoint and the routes; upgrade flannel if it recurs.",
		Sources: []string{"https://github.com/flannel-io/flannel/issues/1208", "https://github.com/flannel-io/flannel/issues/1391", "https://github.com/kubernetes-sigs/sig-windows-tools/issues/94"},
		Check:   checkHostGW,
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
	// The names that must agree.
	want := f.BackendName
	wantFrom := f.File + " Backend.Name"
	if want == "" {
		want, wantFrom = "vxlan0", f.File+" (default for vxlan)"
		if !vxlan {
			want, wantFrom = "cbr0", f.File+" (default for host-gw)"
		}
	}
	var differ []string
	ev := []finding.Evidence{{File: f.File, Field: "Backend.Name", Value: want, Note: wantFrom}}
	for _, c := range s.CNIConfigs {
		if len(c.Plugins) > 0 && c.Plugins[0] == "flannel" && c.Name != want {
			differ = append(differ, fmt.Sprintf("%s names %q", path.Base(c.File), c.Name))
			ev = append(ev, finding.Evidence{File: c.File, Field: "name", Value: c.Name, Expected: want})
		}
	}
	if kp := s.KubeProxy; kp != nil && kp.NetworkName != "" && kp.NetworkName != want {
		differ = append(differ, fmt.Sprintf("kube-proxy uses %q", kp.NetworkName))
		ev = append(ev, finding.Evidence{File: kp.Source, Field: "--network-name", Value: kp.NetworkName, Expected: want})
	}
	if len(differ) > 0 {
		issues = append(issues, Issue{Summary: fmt.Sprintf("flannel creates HNS network %q but %s", want, strings.Join(differ, " and ")), Evidence: ev,
			Subjects: []string{"network:" + want}})
	}
	return issues, nil
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
		if bt := node.Annotations[snapshot.AnnotationFlannelBackendType]; !strings.EqualFold(bt, "host-gw") {
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
