package payload

// Addresses that messages carry past their headers: a DNS answer's A and
// AAAA records, neighbour discovery's target and link-layer addresses, an
// ICMP redirect's gateway. The Visitor sees them as it sees a header's.

// ICMP and ICMPv6 message types (IANA).
const (
	icmpRedirect            = 5
	icmp6RouterSolicit      = 133
	icmp6RouterAdvert       = 134
	icmp6NeighbourSolicit   = 135
	icmp6NeighbourAdvert    = 136
	icmp6Redirect           = 137
	ndOptSourceLinkAddr     = 1
	ndOptTargetLinkAddr     = 2
	ndOptPrefixInfo         = 3
	ndOptRedirectedHeader   = 4
	ndOptRecursiveDNSServer = 25
	dnsTypeA                = 1
	dnsTypeAAAA             = 28
)

// neighbourDiscovery walks the addresses of an ICMPv6 neighbour discovery
// message (RFC 4861, and RFC 8106's DNS servers): the target (and a
// redirect's destination), then its options.
func (w *Walker) neighbourDiscovery(m []byte) {
	var opts int
	switch m[0] {
	case icmp6RouterSolicit:
		opts = 8
	case icmp6RouterAdvert:
		opts = 16
	case icmp6NeighbourSolicit, icmp6NeighbourAdvert:
		if len(m) < 24 {
			return
		}
		w.visit.IP(m[8:24])
		opts = 24
	case icmp6Redirect:
		if len(m) < 40 {
			return
		}
		w.visit.IP(m[8:24])
		w.visit.IP(m[24:40])
		opts = 40
	default:
		return
	}
	for o := opts; o+2 <= len(m); {
		n := int(m[o+1]) * 8
		if n == 0 || o+n > len(m) {
			return
		}
		opt := m[o : o+n]
		switch m[o] {
		case ndOptSourceLinkAddr, ndOptTargetLinkAddr:
			if n == 8 {
				w.visit.MAC(opt[2:8])
			}
		case ndOptPrefixInfo:
			if n == 32 {
				w.visit.IP(opt[16:32])
			}
		case ndOptRecursiveDNSServer:
			for a := 8; a+16 <= n; a += 16 {
				w.visit.IP(opt[a : a+16])
			}
		case ndOptRedirectedHeader:
			// The packet redirected, from its IPv6 header: its addresses.
			if q := opt[8:]; len(q) >= 40 && q[0]>>4 == 6 {
				w.visit.IP(q[8:24])
				w.visit.IP(q[24:40])
			}
		}
		o += n
	}
}

// dns walks the A and AAAA records of a DNS message (RFC 1035): its
// answers, authority and additional records, past the questions. Names are
// left as they are. A message cut short is walked as far as it goes.
func (w *Walker) dns(m []byte) {
	if len(m) < 12 {
		return
	}
	off := 12
	for range int(be16(m[4:6])) { // questions: a name, a type and a class
		if off = dnsSkipName(m, off); off < 0 || off+4 > len(m) {
			return
		}
		off += 4
	}
	records := int(be16(m[6:8])) + int(be16(m[8:10])) + int(be16(m[10:12]))
	for range records {
		if off = dnsSkipName(m, off); off < 0 || off+10 > len(m) {
			return
		}
		typ, n := be16(m[off:off+2]), int(be16(m[off+8:off+10]))
		off += 10
		if off+n > len(m) {
			return
		}
		if typ == dnsTypeA && n == 4 || typ == dnsTypeAAAA && n == 16 {
			w.visit.IP(m[off : off+n])
		}
		off += n
	}
}

// dnsSkipName returns the offset past the name at off (labels, ended by a
// zero or by a compression pointer), or -1 where it does not end in m.
func dnsSkipName(m []byte, off int) int {
	for off < len(m) {
		switch l := int(m[off]); {
		case l == 0:
			return off + 1
		case l&0xc0 == 0xc0:
			if off+2 > len(m) {
				return -1
			}
			return off + 2
		case l&0xc0 != 0:
			return -1
		default:
			off += 1 + l
		}
	}
	return -1
}
