package anonymize

import (
	"math/rand/v2"
	"net/netip"
	"testing"
)

// firstStepLeaves: the cipher's first image of a lies in another range or
// on an address kept whole, so a walks on and may leave the networks it
// was in (a network's image holds the kept address; a must go elsewhere).
func firstStepLeaves(m *addrMapper, a netip.Addr) bool {
	c, bits, low := m.v6, 128, keepLow6
	if a.Is4() {
		c, bits, low = m.v4, 32, keepLow4
	}
	r, special := ruleFor(a)
	b, _ := netip.AddrFromSlice(c.permute(a.AsSlice(), r.keep, bits-low))
	return !sameRange(b, r, special)
}

// TestPrefixMovesAndHoldsItsAddresses: over many keys, a network of any
// length in any range (RFC 1918, CGNAT, APIPA, public, IPv6 ULA,
// link-local, global), narrower than its range and not inside a range
// kept whole, never maps to itself, and holds the mapped form of every
// address of its range it held, but for an address whose first image
// under the cipher is kept or in another range. Public networks wider
// than /16 are left out of the first: their walk may come back to them
// (see docs/anonymize.md).
func TestPrefixMovesAndHoldsItsAddresses(t *testing.T) {
	nKeys := 500
	if testing.Short() {
		nKeys = 50
	}
	r := rand.New(rand.NewPCG(27, 12))
	lengths4 := []int{1, 4, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 20, 22, 23, 24, 25, 26, 28, 29, 30, 31}
	lengths6 := []int{1, 8, 9, 10, 11, 16, 32, 48, 56, 63, 64, 65, 80, 96, 104, 108, 111, 112, 113, 120, 127}
	fixed := []string{"192.168.255.0/24", "192.168.254.0/23", "192.168.255.0/29", "192.168.255.0/25", "10.0.2.0/23", "10.0.0.0/16",
		"168.63.129.0/24", "168.63.129.16/28", "169.254.169.0/24", "169.254.0.0/17", "128.0.0.0/24", "10.96.0.0/12", "172.20.0.0/14", "100.96.0.0/11"}
	checks, exceptions := 0, 0
	for _, k := range testKeys(t, nKeys) {
		m := newAddrMapper(k)
		var nets []netip.Prefix
		for _, s := range fixed {
			nets = append(nets, netip.MustParsePrefix(s))
		}
		for range 30 {
			h := randomAddr(r)
			lengths := lengths4
			if h.Is6() {
				lengths = lengths6
			}
			nets = append(nets, netip.PrefixFrom(h, lengths[r.IntN(len(lengths))]).Masked())
		}
		for _, p := range nets {
			pr, special := prefixRule(p)
			if pr.whole || p.Bits() <= pr.keep {
				if got := m.Prefix(p); got != p {
					t.Fatalf("key %x: %s, a kept range's or a range's own, -> %s", k, p, got)
				}
				continue
			}
			got := m.Prefix(p)
			if got.Bits() != p.Bits() || got.Masked() != got {
				t.Fatalf("key %x: %s -> %s", k, p, got)
			}
			if got == p && (special || p.Bits() >= 16) {
				t.Errorf("key %x: %s left as it was", k, p)
			}
			for range 8 {
				h := randomIn(r, p)
				if hr, hs := ruleFor(h); hr.whole || hs != special || hr != pr {
					continue // kept, or of a narrower range inside p
				}
				checks++
				if firstStepLeaves(m, h) {
					exceptions++
					continue
				}
				if mh := m.Addr(h); !got.Contains(mh) {
					t.Errorf("key %x: %s -> %s, but its %s -> %s", k, p, got, h, mh)
				}
			}
		}
		if t.Failed() {
			return
		}
	}
	// The exceptions are the few addresses a walk takes elsewhere.
	if exceptions*20 > checks {
		t.Errorf("%d of %d addresses walked out of their network", exceptions, checks)
	}
}

// randomIn draws an address of p.
func randomIn(r *rand.Rand, p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		if r.IntN(2) == 1 {
			b[i/8] |= 0x80 >> (i % 8)
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// TestMappingListsNetworks: --write-map lists a network as it was written
// (10.96.0.0/12) with the network it became, and not its first address
// as if that had been mapped as an address.
func TestMappingListsNetworks(t *testing.T) {
	an := New(testKeys(t, 1)[0])
	out := an.String("--service-cluster-ip-range=10.96.0.0/12")
	listed := map[string]string{}
	for _, kv := range an.Mapping().Addresses {
		listed[kv[0]] = kv[1]
	}
	want := an.Prefix(netip.MustParsePrefix("10.96.0.0/12")).String()
	if listed["10.96.0.0/12"] != want || out != "--service-cluster-ip-range="+want {
		t.Errorf("map %v, text %q, want 10.96.0.0/12 -> %s", listed, out, want)
	}
	if _, ok := listed["10.96.0.0"]; ok {
		t.Errorf("map lists 10.96.0.0: %v", listed)
	}
}
