package anonymize

import (
	"net/netip"
	"testing"
)

// TestReview27bGlobalIPv6StaysGlobal: "a public address stays public". A
// global unicast IPv6 address (2000::/3: an Azure node's 2603:1020:…, a
// provider's 2a02:…) must map to another global unicast address, not into
// reserved space (4000::/3 … e000::/4, 0100::/8) that no node carries and
// that a reader, or a rule classing addresses, takes for something else.
func TestReview27bGlobalIPv6StaysGlobal(t *testing.T) {
	global := netip.MustParsePrefix("2000::/3")
	addrs := []string{"2603:1020:206:4::1f", "2a02:8070:1c2:9f00::4d", "2406:da18:77c:be00::35"}
	out := 0
	var example string
	keys := testKeys(t, 200)
	for _, k := range keys {
		m := newAddrMapper(k)
		for _, s := range addrs {
			a := netip.MustParseAddr(s)
			b := m.Addr(a)
			if !global.Contains(b) {
				out++
				if example == "" {
					example = a.String() + " -> " + b.String()
				}
			}
		}
	}
	if out > 0 {
		t.Errorf("%d of %d global IPv6 addresses left global unicast space over %d keys, e.g. %s", out, len(addrs)*len(keys), len(keys), example)
	}
}
