package anonymize

import (
	"encoding/hex"
	"math/rand/v2"
	"net/netip"
	"testing"
)

// leakyKey is a key under which 192.168.50.21 was once left as it was;
// testKeys puts it first.
const leakyKey = "5f252f3ec65a609aadd822eae45e775e9173bfae3d975ea893e71f7a7a7ef407"

func testKeys(t *testing.T, n int) []Key {
	t.Helper()
	var k0 Key
	if _, err := hex.Decode(k0[:], []byte(leakyKey)); err != nil {
		t.Fatal(err)
	}
	keys := []Key{k0}
	r := rand.New(rand.NewPCG(27, 3))
	for len(keys) < n {
		var k Key
		for i := range k {
			k[i] = byte(r.Uint32())
		}
		keys = append(keys, k)
	}
	return keys
}

// Addresses of every range diag maps, and the neighbours of the ranges
// kept whole inside them (their walks meet the kept range first).
var propertyAddrs = []string{
	"192.168.50.21", "192.168.51.7", "192.168.0.1", "192.168.254.1", "192.168.254.3", "192.168.253.2", "192.168.252.0",
	"192.168.255.4", "192.168.255.200",
	"10.1.2.3", "10.0.3.1", "10.0.1.15", "10.0.0.2", "10.0.6.15", "10.244.1.5", "10.255.255.254",
	"172.16.0.1", "172.31.255.254", "172.20.5.4",
	"100.64.0.1", "100.127.255.254", "100.100.3.2",
	"169.254.10.1", "169.254.168.254", "169.254.170.254", "169.254.171.254", "169.254.169.253", "169.254.0.0",
	"8.8.8.8", "20.1.2.3", "11.0.0.1", "9.255.255.1", "223.255.255.1", "126.0.0.1", "128.0.0.1", "1.1.1.1",
	"192.0.1.5", "192.0.2.5", "172.15.255.1", "172.32.0.1", "100.63.255.1", "100.128.0.1", "168.63.128.16", "168.63.129.17",
	"fd00::1:5", "fd12:3456:789a::10", "fc00::1", "fe80::1234:5678:9abc:def0", "fe80::1", "fe80:0:0:1::5",
	"2001:db8::1", "2001:db8:ffff::2", "2001:4860::8888", "2603:1030:20e:3::23c", "2a01:111:f400::1",
	"::ffff:192.168.50.21", "::2:0:1",
}

// TestAddrNeverItself: no key leaves an address of a mapped range as it
// was, every address stays in its range, and no two become one.
func TestAddrNeverItself(t *testing.T) {
	keys := testKeys(t, 2000)
	if testing.Short() {
		keys = keys[:200]
	}
	for _, k := range keys {
		m := newAddrMapper(k)
		outs := map[netip.Addr]netip.Addr{}
		for _, s := range propertyAddrs {
			a := netip.MustParseAddr(s)
			out := m.Addr(a)
			if out == a {
				t.Fatalf("key %x: %s left as it was", k, a)
			}
			ua, uo := a.Unmap(), out.Unmap()
			r, sp := ruleFor(ua)
			if !sameRange(uo, r, sp) {
				t.Fatalf("key %x: %s -> %s: another range", k, a, out)
			}
			if prev, ok := outs[out]; ok {
				t.Fatalf("key %x: %s and %s both -> %s", k, prev, a, out)
			}
			outs[out] = a
		}
	}
}

// TestAddrBijectionNearKeptRanges: over every value of the permuted bits
// next to a range kept whole (192.168.255.0/30, 10.0.2.0/24,
// 169.254.169.254), where walks and lonely addresses happen, the map is a
// bijection with no fixed point, for many keys.
func TestAddrBijectionNearKeptRanges(t *testing.T) {
	keys := testKeys(t, 400)
	if testing.Short() {
		keys = keys[:50]
	}
	for _, k := range keys {
		m := newAddrMapper(k)
		check := func(addrs []netip.Addr) {
			outs := map[netip.Addr]netip.Addr{}
			for _, a := range addrs {
				out := m.Addr(a)
				if out == a {
					t.Fatalf("key %x: %s left as it was", k, a)
				}
				if prev, ok := outs[out]; ok {
					t.Fatalf("key %x: %s and %s both -> %s", k, prev, a, out)
				}
				outs[out] = a
			}
		}
		for _, low := range []byte{0, 1, 3} {
			var addrs []netip.Addr
			for v := 0; v < 255; v++ { // 192.168.255.low is kept
				addrs = append(addrs, netip.AddrFrom4([4]byte{192, 168, byte(v), low}))
			}
			check(addrs)
		}
		var addrs []netip.Addr
		for v := 0; v < 256; v++ {
			if v != 169 {
				addrs = append(addrs, netip.AddrFrom4([4]byte{169, 254, byte(v), 254}))
			}
		}
		check(addrs)
		addrs = addrs[:0]
		for v := 0; v < 64; v++ { // the 10.0.x neighbours of 10.0.2.0/24
			if v != 2 {
				addrs = append(addrs, netip.AddrFrom4([4]byte{10, 0, byte(v), 15}))
			}
		}
		check(addrs)
	}
}

// Every IPv6 class maps inside its class under every key, and a NAT64
// address carries the image of the IPv4 address it embeds.
func TestIPv6ClassesStayInClass(t *testing.T) {
	cases := []struct{ addr, class string }{
		{"2603:1020:206:4::1f", "2000::/3"},
		{"2a02:8070:1c2:9f00::4d", "2000::/3"},
		{"3ffe:831f::1", "2000::/3"},
		{"fd00:10:244:1::5", "fc00::/7"},
		{"fe80::215:5dff:fe0a:7c21", "fe80::/64"},
		{"fe80:1::9", "fe80::/10"},
		{"2001:db8:5::20", "2001:db8::/32"},
		{"3fff:12::7", "3fff::/20"},
		{"64:ff9b::a16:2901", "64:ff9b::/96"},
		{"64:ff9b:1:4::8", "64:ff9b:1::/48"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::/32"},
		{"2002:c000:204::1", "2002::/16"},
	}
	for _, k := range testKeys(t, 200) {
		m := newAddrMapper(k)
		for _, c := range cases {
			a, p := netip.MustParseAddr(c.addr), netip.MustParsePrefix(c.class)
			b := m.Addr(a)
			if !p.Contains(b) || b == a {
				t.Fatalf("%s -> %s: want another address in %s", a, b, p)
			}
		}
		in := netip.MustParseAddr("64:ff9b::10.22.41.93")
		want := m.Addr(netip.MustParseAddr("10.22.41.93")).As4()
		if got := m.Addr(in).As16(); [4]byte(got[12:]) != want {
			t.Fatalf("%s -> %s: want the IPv4 address's image %v", in, m.Addr(in), want)
		}
		if mc := netip.MustParseAddr("ff02::1:ff0a:7c21"); m.Addr(mc) != mc {
			t.Fatalf("multicast %s moved", mc)
		}
	}
}

// TestGlobalIPv6StaysGlobal: "a public address stays public". A
// global unicast IPv6 address (2000::/3: an Azure node's 2603:1020:…, a
// provider's 2a02:…) must map to another global unicast address, not into
// reserved space (4000::/3 … e000::/4, 0100::/8) that no node carries and
// that a reader, or a rule classing addresses, takes for something else.
func TestGlobalIPv6StaysGlobal(t *testing.T) {
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
