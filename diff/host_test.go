package diff

import (
	"net/netip"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// Host routes Windows derives from an adapter's own address (the address
// and its subnet's broadcast as /32) are not compared; any other /32 is.
func TestDerivedHostRoutesLeftOut(t *testing.T) {
	mk := func(routes ...string) *snapshot.Snapshot {
		s := &snapshot.Snapshot{
			Adapters: []*snapshot.HostAdapter{{Name: "Ethernet 2", Addresses: []netip.Prefix{netip.MustParsePrefix("10.20.30.11/24")}}},
			Inputs:   map[snapshot.Input]string{snapshot.InputHostAdapters: "host/adapters.json", snapshot.InputHostRoutes: "host/routes.json"},
		}
		for _, r := range routes {
			s.Routes = append(s.Routes, &snapshot.HostRoute{Destination: netip.MustParsePrefix(r), Interface: "Ethernet 2"})
		}
		return s
	}
	base := []string{"0.0.0.0/0", "10.20.30.0/24"}
	old := mk(base...)
	cur := mk(append(base, "10.20.30.11/32", "10.20.30.255/32", "224.0.0.0/4")...)
	if r := Compare(old, cur); len(r.Changes) != 0 {
		t.Errorf("derived routes reported: %+v", r.Changes)
	}
	cur = mk(append(base, "10.20.30.12/32")...)
	r := Compare(old, cur)
	if len(r.Changes) != 1 || r.Changes[0].Kind != KindHostRoute || r.Changes[0].Change != Added {
		t.Errorf("a /32 to another address: %+v", r.Changes)
	}
	if b, ok := broadcast(netip.MustParsePrefix("100.244.206.64/26")); !ok || b != netip.MustParseAddr("100.244.206.127") {
		t.Errorf("broadcast of /26: %v %v", b, ok)
	}
}
