package anonymize

import "net/netip"

// A rangeRule says how the addresses of one range are mapped: keep is how
// many leading bits stay (the range's own bits, so RFC 1918 stays private
// and APIPA stays APIPA); whole ranges are kept entirely (loopback,
// multicast, netmasks, the Vagrant NAT network rules look for).
type rangeRule struct {
	p     netip.Prefix
	keep  int
	whole bool
}

func whole(s string) rangeRule {
	p := netip.MustParsePrefix(s)
	return rangeRule{p: p, keep: p.Bits(), whole: true}
}

func keepBits(s string) rangeRule {
	p := netip.MustParsePrefix(s)
	return rangeRule{p: p, keep: p.Bits()}
}

// Most specific first.
var v4Rules = []rangeRule{
	whole("0.0.0.0/8"),
	whole("127.0.0.0/8"),
	whole("224.0.0.0/3"),        // multicast, reserved, broadcast, and netmasks from 224.0.0.0 up
	whole("128.0.0.0/32"),       // the netmask of a /1
	whole("192.0.0.0/24"),       // IETF assignments, and the netmask of a /2
	whole("10.0.2.0/24"),        // Vagrant/VirtualBox NAT: what OVL rules recognise
	whole("192.168.255.0/30"),   // the HNS bootstrap network Calico and flannel create
	whole("168.63.129.16/32"),   // the Azure platform address (DNS, health probes)
	whole("169.254.169.254/32"), // cloud instance metadata
	keepBits("169.254.0.0/16"),  // APIPA: OVL-01's evidence
	keepBits("10.0.0.0/8"),
	keepBits("172.16.0.0/12"),
	keepBits("192.168.0.0/16"),
	keepBits("100.64.0.0/10"), // carrier-grade NAT
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

var v6Rules = []rangeRule{
	whole("::/112"), // unspecified and loopback, at the map's granularity (the last 16 bits are kept)
	whole("ff00::/8"),
	keepBits("fe80::/64"), // link-local as Windows and Linux number it: only the interface ID is mapped
	keepBits("fe80::/10"),
	keepBits("fc00::/7"),
	keepBits("64:ff9b::/96"),   // NAT64's well-known prefix: the IPv4 address after it is mapped
	keepBits("64:ff9b:1::/48"), // NAT64 for local use
	keepBits("2001:db8::/32"),  // documentation
	keepBits("3fff::/20"),      // documentation (RFC 9637)
	keepBits("2001::/32"),      // Teredo
	keepBits("2002::/16"),      // 6to4
	keepBits("2000::/3"),       // global unicast: public stays public, as for IPv4
}

// Bits kept at the end of every address: the host's place in its subnet
// (the .1 gateway, the .0 network, a Service's .10), so that what rules
// compute from a subnet stays true. The permuted bits above them are the
// topology.
const (
	keepLow4 = 8
	keepLow6 = 16
)

func ruleFor(a netip.Addr) (rangeRule, bool) {
	rules := v6Rules
	if a.Is4() {
		rules = v4Rules
	}
	for _, r := range rules {
		if r.p.Contains(a) {
			return r, true
		}
	}
	return rangeRule{}, false
}

// addrMapper maps addresses, remembering each (bundles repeat addresses a
// great deal, and each costs up to 112 levels of the cipher).
type addrMapper struct {
	v4, v6 *panCipher
	seen   map[netip.Addr]netip.Addr
	walked map[netip.Addr]netip.Addr
	// prefixes are the networks mapped, for the map (--write-map).
	prefixes map[netip.Prefix]netip.Prefix
}

func newAddrMapper(k Key) *addrMapper {
	v4, _ := newPanCipher(k.derive("ipv4"))
	v6, _ := newPanCipher(k.derive("ipv6"))
	return &addrMapper{v4: v4, v6: v6, seen: map[netip.Addr]netip.Addr{}, walked: map[netip.Addr]netip.Addr{}, prefixes: map[netip.Prefix]netip.Prefix{}}
}

// Addr maps one address: prefix-preserving within its range, a public
// address to a public one, and never to itself unless its range is kept
// whole (see v4Rules and v6Rules).
func (m *addrMapper) Addr(a netip.Addr) netip.Addr {
	if !a.IsValid() {
		return a
	}
	zone := a.Zone()
	a = a.WithZone("")
	if out, ok := m.seen[a]; ok {
		return out.WithZone(zone)
	}
	out := m.mapAddr(a)
	m.seen[a] = out
	return out.WithZone(zone)
}

func (m *addrMapper) mapAddr(a netip.Addr) netip.Addr {
	if a.Is4In6() {
		return netip.AddrFrom16(m.Addr(a.Unmap()).As16())
	}
	if nat64.Contains(a) {
		// The IPv4 address a NAT64 prefix carries maps as that address does.
		b := a.As16()
		v4 := m.Addr(netip.AddrFrom4([4]byte(b[12:])))
		copy(b[12:], v4.AsSlice())
		return netip.AddrFrom16(b)
	}
	if r, _ := ruleFor(a); r.whole {
		return a
	}
	if out := m.walk(a); out != a {
		// a may be the partner a lonely address takes the place of.
		if y, ok := m.claimedBy(a); ok {
			return y
		}
		return out
	}
	// a is lonely: the other addresses of its cycle under the cipher
	// are all in other ranges, so the walk came back to it. It takes
	// its partner's image, and its partner takes a (claimedBy): still
	// a bijection, and a moves.
	z, ok := m.partner(a)
	if !ok {
		return a // a range of fewer than four addresses: none here has one
	}
	return m.walk(z) // z itself when z is lonely too: the two swap
}

// walk maps a through the cipher of its family, within its range: an
// address that landed in another range (a public one among the private, a
// private one in the Vagrant NAT network) walks on through the same
// permutation until it is back in its own. This cycle walking is a
// bijection on each range; it returns a itself only when every other
// address on a's cycle is in another range.
func (m *addrMapper) walk(a netip.Addr) netip.Addr {
	if out, ok := m.walked[a]; ok {
		return out
	}
	c, bits, low := m.v6, 128, keepLow6
	if a.Is4() {
		c, bits, low = m.v4, 32, keepLow4
	}
	r, special := ruleFor(a)
	out := a
	for {
		b, _ := netip.AddrFromSlice(c.permute(out.AsSlice(), r.keep, bits-low))
		out = b
		if sameRange(out, r, special) {
			break
		}
	}
	m.walked[a] = out
	return out
}

// sameRange: b is mapped by rule r (special) or, for a public address
// (special false), by no rule at all.
func sameRange(b netip.Addr, r rangeRule, special bool) bool {
	r2, sp := ruleFor(b)
	if special {
		return sp && r2 == r
	}
	return !sp
}

// partnerMasks pick a lonely address's partner among the other three of
// its group of four (the last two permuted bits): one of them is in its
// range wherever an excluded range is a single address or a larger block.
var partnerMasks = [...]int{1, 2, 3}

// partner is the first address of a's group, a XOR a mask, in a's range.
func (m *addrMapper) partner(a netip.Addr) (netip.Addr, bool) {
	r, special := ruleFor(a)
	for _, mk := range partnerMasks {
		z := xorLow(a, mk)
		if sameRange(z, r, special) {
			return z, true
		}
	}
	return netip.Addr{}, false
}

// claimedBy: a is the partner of a lonely address y, which a maps to.
func (m *addrMapper) claimedBy(a netip.Addr) (netip.Addr, bool) {
	r, special := ruleFor(a)
	for _, mk := range partnerMasks {
		y := xorLow(a, mk)
		if !sameRange(y, r, special) || m.walk(y) != y {
			continue
		}
		if z, ok := m.partner(y); ok && z == a {
			return y, true
		}
	}
	return netip.Addr{}, false
}

// xorLow flips the bits of mask (1, 2 or 3) in the last two permuted bits
// of a, just above the kept low bits.
func xorLow(a netip.Addr, mask int) netip.Addr {
	b := a.AsSlice()
	low := keepLow6
	if a.Is4() {
		low = keepLow4
	}
	for i := 0; i < 2; i++ {
		if mask&(1<<i) != 0 {
			pos := len(b)*8 - low - 1 - i // counted from the most significant bit
			b[pos/8] ^= 0x80 >> (pos % 8)
		}
	}
	out, _ := netip.AddrFromSlice(b)
	return out
}

// Prefix maps a CIDR. One with host bits set (an interface's
// 10.244.1.5/24) is its address mapped as an address. A network maps to
// the image of its addresses under the permutation: it contains the mapped
// form of every address it contained, except the few that land on an
// address kept whole (192.168.255.1) and walk on. A network is kept only
// where it lies inside a range kept whole (10.0.2.0/24) or is a range's
// own (10.0.0.0/8); one that merely starts in a kept range
// (192.168.255.0/24, 10.0.2.0/23) is the customer's and maps like any
// other. Every network narrower than its range moves (see panCipher).
func (m *addrMapper) Prefix(p netip.Prefix) netip.Prefix {
	a, bits := p.Addr(), p.Bits()
	if !p.IsValid() {
		return p
	}
	if a.Is4In6() && bits >= 96 {
		v4 := m.Prefix(netip.PrefixFrom(a.Unmap(), bits-96))
		return netip.PrefixFrom(netip.AddrFrom16(v4.Addr().As16()), bits)
	}
	if nat64.Contains(a) && bits > 96 {
		b := a.As16()
		v4 := m.Prefix(netip.PrefixFrom(netip.AddrFrom4([4]byte(b[12:])), bits-96))
		copy(b[12:], v4.Addr().AsSlice())
		return netip.PrefixFrom(netip.AddrFrom16(b), bits)
	}
	total, low := 128, keepLow6
	if a.Is4() {
		total, low = 32, keepLow4
	}
	if p.Masked() != p || bits == total {
		return netip.PrefixFrom(m.Addr(a), bits)
	}
	if out, ok := m.prefixes[p]; ok {
		return out
	}
	out := p
	switch r, special := prefixRule(p); {
	case r.whole || bits <= r.keep:
	case bits >= total-low:
		// Within one block of the permutation: the block's image, read
		// from an address of p that no kept address shares the low bits
		// of (those walk on alone).
		out = netip.PrefixFrom(m.mapAddr(unitRep(p)), bits).Masked()
	default:
		out = m.walkPrefix(p, r, special)
	}
	m.prefixes[p] = out
	return out
}

// walkPrefix maps a network wider than a block: the cipher's image of its
// bits, walked on (as walk does for an address) while that image lies
// wholly in another range. A network whose walk comes back to it keeps
// its place, and its addresses stay inside it.
func (m *addrMapper) walkPrefix(p netip.Prefix, r rangeRule, special bool) netip.Prefix {
	c, to := m.v6, 128-keepLow6
	if p.Addr().Is4() {
		c, to = m.v4, 32-keepLow4
	}
	x := p
	for {
		b, _ := netip.AddrFromSlice(c.permute(x.Addr().AsSlice(), r.keep, to))
		x = netip.PrefixFrom(b, p.Bits()).Masked()
		if x == p {
			return p
		}
		if r2, sp := prefixRule(x); sp == special && (!special || r2 == r) {
			return x
		}
	}
}

// prefixRule is the first rule (most specific) whose range holds all of
// p; special is false for a public network (no rule holds it).
func prefixRule(p netip.Prefix) (rangeRule, bool) {
	rules := v6Rules
	if p.Addr().Is4() {
		rules = v4Rules
	}
	for _, r := range rules {
		if r.p.Bits() <= p.Bits() && r.p.Contains(p.Addr()) {
			return r, true
		}
	}
	return rangeRule{}, false
}

// unitRep is an address of p (a network no wider than a block) whose low
// bits no range kept whole inside a block has (192.168.255.0/30's .0 to
// .3, 168.63.129.16's .16): its walk is the block's. p.Addr() when every
// address of p has such low bits.
func unitRep(p netip.Prefix) netip.Addr {
	for a, i := p.Addr(), 0; p.Contains(a) && i < 16; a, i = a.Next(), i+1 {
		if !partialLow(a) {
			return a
		}
	}
	return p.Addr()
}

// partialLow: a's low bits are those of an address of a range kept whole
// that is narrower than a block.
func partialLow(a netip.Addr) bool {
	rules, total, low := v6Rules, 128, keepLow6
	if a.Is4() {
		rules, total, low = v4Rules, 32, keepLow4
	}
	for _, r := range rules {
		if !r.whole || r.p.Bits() <= total-low {
			continue
		}
		b := r.p.Addr().AsSlice()
		ab := a.AsSlice()
		copy(b[(total-low)/8:], ab[(total-low)/8:])
		if x, _ := netip.AddrFromSlice(b); r.p.Contains(x) {
			return true
		}
	}
	return false
}
