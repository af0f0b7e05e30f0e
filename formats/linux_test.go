package formats

import (
	"net/netip"
	"testing"

	"github.com/wincni/diag/snapshot"
)

func TestVXLANRoutes(t *testing.T) {
	a := netip.MustParseAddr
	ln := &snapshot.LinuxNet{
		Links: []*snapshot.LinuxLink{{Name: "eth0"}, {Name: "flannel.1", VXLAN: &snapshot.VXLANDevice{VNI: 1}}},
		Routes: []*snapshot.LinuxRoute{
			{Dst: "10.244.1.0/24", Gateway: a("10.244.1.0"), Dev: "flannel.1"}, // resolved
			{Dst: "10.244.2.0/24", Gateway: a("10.244.2.0"), Dev: "flannel.1"}, // neighbour, no FDB
			{Dst: "10.244.3.0/24", Gateway: a("10.244.3.0"), Dev: "flannel.1"}, // no neighbour
			{Dst: "default", Gateway: a("192.168.10.1"), Dev: "eth0"},          // not VXLAN
		},
		Neighbors: []*snapshot.LinuxNeighbor{
			{Dst: a("10.244.1.0"), MAC: "aa:aa:aa:aa:aa:01", Dev: "flannel.1"},
			{Dst: a("10.244.1.0"), MAC: "aa:aa:aa:aa:aa:02", Dev: "flannel.1"}, // the last entry wins
			{Dst: a("10.244.2.0"), MAC: "aa:aa:aa:aa:aa:03", Dev: "flannel.1"},
			{Dst: a("10.244.3.0"), MAC: "aa:aa:aa:aa:aa:04", Dev: "eth0"}, // another device
		},
		FDB: []*snapshot.LinuxFDBEntry{
			{MAC: "aa:aa:aa:aa:aa:02", Dev: "flannel.1", Dst: a("192.168.10.21")},
			{MAC: "aa:aa:aa:aa:aa:03", Dev: "eth0", Dst: a("192.168.10.22")}, // another device
		},
	}
	got := ln.VXLANRoutes()
	want := []struct {
		dst, mac, vtep string
	}{
		{"10.244.1.0/24", "aa:aa:aa:aa:aa:02", "192.168.10.21"},
		{"10.244.2.0/24", "aa:aa:aa:aa:aa:03", "invalid IP"},
		{"10.244.3.0/24", "", "invalid IP"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d routes, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Dst != w.dst || got[i].MAC != w.mac || got[i].VTEP.String() != w.vtep {
			t.Errorf("route %d: %s %q %s, want %s %q %s", i, got[i].Dst, got[i].MAC, got[i].VTEP, w.dst, w.mac, w.vtep)
		}
	}
}
