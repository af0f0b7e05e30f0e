package analyzers

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

const (
	// vxlanOverhead is what VXLAN adds to an inner frame: outer IPv4 20,
	// UDP 8, VXLAN 8, inner Ethernet 14 (flannel's encapOverhead, HNS's
	// EncapOverhead).
	vxlanOverhead = 50
	// windowsOverlayPodMTU is the MTU HNS gives process-isolated pod vNICs
	// on an overlay network.
	windowsOverlayPodMTU = 1450
	// mtuUnset is what netsh shows for the loopback pseudo-interface.
	mtuUnset = 4294967295
)

func init() {
	register(&Rule{
		ID: "MTU-01", Title: "VXLAN does not fit the underlay MTU", Severity: finding.Fail,
		Checks:  "Windows: the adapter holding the overlay network's ManagementIP has an MTU of at least 1500 (pods use 1450, VXLAN adds 50). Linux: each VXLAN device's MTU plus 50 fits the MTU of the device that carries its traffic.",
		Why:     "Encapsulated packets larger than the underlay MTU are fragmented or dropped: small requests work while TLS handshakes, large responses and image pulls through pods hang, typically only between nodes.",
		Fix:     "Lower the pod/VXLAN MTU to the underlay MTU minus 50 (flannel derives it from the host interface: set the host NIC MTU first), or raise the underlay MTU by at least 50 bytes.",
		Sources: []string{"https://github.com/Azure/AKS/issues/2873", "https://github.com/microsoft/SDN/issues/517", "flannel vxlan_network_windows.go (encapOverhead 50)"},
		Check:   checkMTU,
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (encapOverhead 50)",
			"Windows HNS (overlay pod vNICs get MTU 1450)",
			"Linux VXLAN device (the kernel adds the same 50 bytes on the underlying device)",
		},
		Guards: []string{
			"only the adapter that holds an Overlay network's ManagementIP",
			"adapters with an unknown MTU, or the loopback's 4294967295, are not judged",
			"Linux: only VXLAN devices whose underlying device is found (by local address or dev)",
			"skipped without host adapters and Linux links",
		},
	})
}

func checkMTU(s *snapshot.Snapshot) ([]Issue, error) {
	if s.Linux == nil && !s.Has(snapshot.InputHostAdapters) {
		return nil, Skip("no %s and no %s", snapshot.InputFiles[snapshot.InputHostAdapters], snapshot.InputFiles[snapshot.InputLinux])
	}
	var issues []Issue
	if s.Linux != nil {
		issues = append(issues, linuxVXLANMTU(s)...)
		return issues, nil
	}
	for _, n := range overlayNetworks(s) {
		if !n.ManagementIP.IsValid() {
			continue
		}
		for _, a := range s.Adapters {
			if a.MTU <= 0 || a.MTU == mtuUnset || !slices.ContainsFunc(a.Addresses, func(p netip.Prefix) bool { return p.Addr() == n.ManagementIP }) {
				continue
			}
			if a.MTU >= windowsOverlayPodMTU+vxlanOverhead {
				continue
			}
			issues = append(issues, Issue{Summary: fmt.Sprintf("adapter %s carrying network %s's VXLAN (%s) has MTU %d: pod packets of 1450 bytes become %d on the wire and are dropped or fragmented",
				quote(a.Name), n.Name, n.ManagementIP, a.MTU, windowsOverlayPodMTU+vxlanOverhead),
				Evidence: []finding.Evidence{{File: s.Inputs[snapshot.InputHostAdapters], Object: "adapter " + a.Name, Field: "MTU", Value: strconv.FormatInt(a.MTU, 10), Expected: "1500 or more"},
					{File: n.ManagementIPFile, Object: networkObject(n), Field: n.ManagementIPField, Value: n.ManagementIP.String()}},
				Subjects: []string{"network:" + n.Name}})
		}
	}
	return issues, nil
}

func linuxVXLANMTU(s *snapshot.Snapshot) []Issue {
	var issues []Issue
	for _, l := range s.Linux.Links {
		if l.VXLAN == nil || l.MTU <= 0 {
			continue
		}
		var under *snapshot.LinuxLink
		for _, u := range s.Linux.Links {
			if u == l {
				continue
			}
			if (l.VXLAN.Local.IsValid() && slices.ContainsFunc(u.Addresses, func(p netip.Prefix) bool { return p.Addr() == l.VXLAN.Local })) ||
				(l.VXLAN.Dev != "" && (u.Name == l.VXLAN.Dev || strconv.FormatInt(u.Index, 10) == l.VXLAN.Dev)) {
				under = u
				break
			}
		}
		if under == nil || under.MTU <= 0 || l.MTU+vxlanOverhead <= under.MTU {
			continue
		}
		issues = append(issues, Issue{Summary: fmt.Sprintf("VXLAN device %s has MTU %d but %s under it only %d: full-size pod packets (%d on the wire) are dropped or fragmented",
			l.Name, l.MTU, under.Name, under.MTU, l.MTU+vxlanOverhead),
			Evidence: []finding.Evidence{{File: s.Inputs[snapshot.InputLinux], Object: "link " + l.Name, Field: "mtu", Value: strconv.FormatInt(l.MTU, 10), Expected: fmt.Sprintf("at most %d", under.MTU-vxlanOverhead)},
				{File: s.Inputs[snapshot.InputLinux], Object: "link " + under.Name, Field: "mtu", Value: strconv.FormatInt(under.MTU, 10)}}})
	}
	return issues
}
