package formats

import (
	"testing"

	"github.com/wincni/diag/snapshot"
)

func TestParseFirewallAndPortRanges(t *testing.T) {
	s := loadSeed(t, "seed-fixed")
	fw := s.Firewall
	if fw == nil || len(fw.Profiles) != 3 || len(fw.Rules) != 1 || len(fw.Networks) != 2 || !s.Has(snapshot.InputFirewall) {
		t.Fatalf("firewall %+v", fw)
	}
	r := fw.Rules[0]
	if !r.Enabled || !r.CoversUDPPort(4789) || r.CoversUDPPort(4790) || !r.AppliesTo("Public") {
		t.Errorf("rule %+v", r)
	}
	pr := s.PortRanges
	free, total, ok := pr.FreeBlocks("tcp")
	// 49152..65535 is 256 blocks; 50000-50059 touches two of them.
	if !ok || total != 256 || free != 254 {
		t.Errorf("tcp: %d free of %d (%v)", free, total, ok)
	}
}

func TestFirewallRuleMatching(t *testing.T) {
	for _, c := range []struct {
		r    snapshot.FirewallRule
		want bool
	}{
		{snapshot.FirewallRule{Protocol: "UDP", LocalPorts: []string{"4000-5000"}}, true},
		{snapshot.FirewallRule{Protocol: "UDP", LocalPorts: []string{"Any"}, Program: "Any"}, true},
		{snapshot.FirewallRule{Protocol: "UDP", LocalPorts: []string{"Any"}, Program: `C:\k\flanneld.exe`}, false},
		{snapshot.FirewallRule{Protocol: "TCP", LocalPorts: []string{"4789"}}, false},
		{snapshot.FirewallRule{Protocol: "Any", LocalPorts: []string{"4789", "8472"}}, true},
		{snapshot.FirewallRule{Protocol: "UDP", LocalPorts: []string{"4790-x"}}, false},
	} {
		if got := c.r.CoversUDPPort(4789); got != c.want {
			t.Errorf("%+v covers 4789: %v", c.r, got)
		}
	}
	if (snapshot.FirewallRule{Profile: "Domain, Private"}).AppliesTo("Public") || !(snapshot.FirewallRule{Profile: "Domain, Private"}).AppliesTo("private") {
		t.Error("profile matching")
	}
	if snapshot.ProfileFor("DomainAuthenticated") != "Domain" || snapshot.ProfileFor("Public") != "Public" {
		t.Error("ProfileFor")
	}
}
