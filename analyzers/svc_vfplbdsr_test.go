package analyzers

import (
	"net/netip"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// A rule is a load balancer's when its name holds the whole
// _<VIP>_<port>_<target>_<protocol> run, ended or followed by "_", or its
// conditions name the destination; a longer number is another rule's.
func TestDSRRuleKeys(t *testing.T) {
	g := &snapshot.VFPGroup{Rules: []*snapshot.VFPRule{
		{ID: "LB_DSR_ab12_10.0.0.4_10.96.0.1_443_6443_6"},
		{FriendlyName: "LB_DSR_ab12_10.0.0.4_10.96.0.10_53_53_17_1"},
		{ID: "x_10.96.0.20_80_8080_60"},
		{Conditions: snapshot.Pairs{{Key: "Destination IP", Value: "10.96.0.30"}, {Key: "Destination ports", Value: "80"}, {Key: "Protocols", Value: "6"}}},
	}}
	keys := dsrRuleKeys(g)
	vip := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	for _, c := range []struct {
		t    dsrTarget
		want bool
	}{
		{dsrTarget{vip("10.96.0.1"), 443, 6443, 6}, true},
		{dsrTarget{vip("10.96.0.10"), 53, 53, 17}, true},
		{dsrTarget{vip("10.96.0.20"), 80, 8080, 6}, false},
		{dsrTarget{vip("10.96.0.30"), 80, 8080, 6}, true},
		{dsrTarget{vip("10.96.0.1"), 443, 6443, 17}, false},
	} {
		if got := keys[c.t.byName()] || keys[c.t.byConditions()]; got != c.want {
			t.Errorf("%v: %v", c.t, got)
		}
	}
}
