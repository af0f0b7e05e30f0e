package analyzers

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "EP-01", Title: "Duplicate endpoint addresses or pod subnet nearly full", Severity: finding.Fail,
		Needs:  []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks: "No two local endpoints share an address (a remote endpoint sharing one with a local endpoint is SVC-06's business); the local endpoints of each pod subnet use less than 90% of its addresses (network, gateway and broadcast excluded).",
		Why:    "A CNI DEL that did not run leaves the endpoint and its IPAM reservation behind: new pods fail with \"The object already exists (0x1392)\", or get an address that another pod still answers for; a subnet full of leaked endpoints leaves new pods Pending.",
		Fix:    "Delete the orphaned endpoints (Get-HnsEndpoint | ? IPAddress -eq <ip> | Remove-HnsEndpoint) and their host-local IPAM files, then upgrade the CNI if it leaks.",
		Sources: []string{"https://github.com/Azure/azure-container-networking/issues/218", "https://github.com/containerd/containerd/issues/6135",
			"Calico for Windows limitations (may leak HNS endpoints)"},
		Check: checkEndpointAddresses,
		Upstream: []string{
			"containernetworking/plugins pkg/hns/endpoint_windows.go (one HNS endpoint per sandbox, named <sandbox>_<network>)",
			"Windows HNS (local endpoints keep their address until the CNI DEL removes them)",
		},
		Guards: []string{
			"a remote endpoint sharing an address with a local one is SVC-06's business, not a duplicate here",
			"pod subnets with fewer than 3 or more than 12 host bits are not judged for fill",
			"network, gateway and broadcast addresses are not counted as usable; a subnet under 90% full is fine",
			"a nearly full subnet is a warning, not a failure",
			guardLinux,
		},
	})
}

func checkEndpointAddresses(s *snapshot.Snapshot) ([]Issue, error) {
	byIP := map[netip.Addr][]*snapshot.Endpoint{}
	for _, e := range s.Endpoints {
		if !e.IsRemote && e.IP.IsValid() {
			byIP[e.IP] = append(byIP[e.IP], e)
		}
	}
	var dups []netip.Addr
	for ip, eps := range byIP {
		if len(eps) > 1 {
			dups = append(dups, ip)
		}
	}
	sort.Slice(dups, func(i, j int) bool { return dups[i].Less(dups[j]) })
	var issues []Issue
	for _, ip := range dups {
		eps := byIP[ip]
		var names []string
		var ev []finding.Evidence
		for _, e := range eps {
			names = append(names, fmt.Sprintf("%s (%s, network %s)", e.ID, e.Name, e.NetworkName))
			ev = append(ev, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "IPAddress", Value: ip.String(), Expected: "unique among local endpoints"})
		}
		issues = append(issues, Issue{Summary: fmt.Sprintf("%d local endpoints hold %s: %s — at most one of them is a live pod", len(eps), ip, strings.Join(names, "; ")),
			Evidence: ev, Subjects: []string{"address:" + ip.String()}})
	}
	for _, n := range cniNetworks(s) {
		for _, sub := range n.Subnets {
			p := sub.Prefix
			host := p.Addr().BitLen() - p.Bits()
			if !p.IsValid() || host < 3 || host > 12 {
				continue // too small to judge, or too large to fill
			}
			usable := 1<<host - 3
			used := 0
			for ip := range byIP {
				if p.Contains(ip) {
					used++
				}
			}
			if used*10 < usable*9 {
				continue
			}
			issues = append(issues, Issue{Severity: finding.Warn,
				Summary: fmt.Sprintf("pod subnet %s of network %s has %d local endpoints for %d usable addresses: new pods will soon get no address", p, n.Name, used, usable),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "Subnets", Value: p.String()},
					{File: s.Inputs[snapshot.InputHNSEndpoints], Field: "local endpoints in " + p.String(), Value: fmt.Sprint(used), Expected: fmt.Sprintf("below 90%% of %d", usable)}},
				Remediation: "Compare the local endpoints with the pods scheduled on this node (kubectl get pods -A -o wide --field-selector spec.nodeName=<node>) and delete the endpoints no pod owns; raise the node's pod CIDR size if they are all in use.",
				Subjects:    []string{"network:" + n.Name, "prefix:" + p.String()}})
		}
	}
	return issues, nil
}
