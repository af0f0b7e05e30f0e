package payload

import "encoding/binary"

// Ports whose payload is kept or walked into. VXLAN's are IANA's and the
// Linux kernel's default (flannel), as anonymize has them; capture
// decode's default is 4789 (others by --vxlan-port).
const (
	portDNS    = 53
	portGeneve = 6081
	portGPE    = 4790
)

func (c *clearer) vxlanPort(p uint16) bool { return p == 4789 || p == 8472 || c.ports[p] }

// maxDepth bounds tunnels in tunnels.
const maxDepth = 4

// Link types of the captures diag reads (capture/linktype.go).
const (
	linkNull     = 0
	linkEthernet = 1
	linkRaw      = 101
	linkLoop     = 108
	linkSLL      = 113
	linkIPv4     = 228
	linkIPv6     = 229
	linkSLL2     = 276
)

// clearer clears the payloads of packets, in place, and counts the bytes.
type clearer struct {
	cleared int64
	ports   map[uint16]bool // VXLAN ports besides 4789 and 8472
}

func be16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }

// frame clears one packet of the given link type.
func (c *clearer) frame(d []byte, link uint32) {
	switch link {
	case linkEthernet:
		c.ethernet(d, 0)
	case linkRaw, linkIPv4, linkIPv6, 12, 14:
		if len(d) > 0 {
			c.l3(d, versionType(d[0]), 0)
		}
	case linkSLL2:
		if len(d) >= 20 {
			c.l3(d[20:], be16(d[0:2]), 0)
		}
	case linkSLL:
		if len(d) >= 16 {
			c.l3(d[16:], be16(d[14:16]), 0)
		}
	case linkNull, linkLoop:
		if len(d) > 4 {
			c.l3(d[4:], versionType(d[4]), 0)
		}
	}
}

func versionType(b byte) uint16 {
	switch b >> 4 {
	case 4:
		return 0x0800
	case 6:
		return 0x86dd
	}
	return 0
}

func (c *clearer) ethernet(d []byte, depth int) {
	if len(d) < 14 || depth > maxDepth {
		return
	}
	off, et := 12, be16(d[12:14])
	for (et == 0x8100 || et == 0x88a8 || et == 0x9100) && off+6 <= len(d) {
		off += 4
		et = be16(d[off : off+2])
	}
	c.l3(d[off+2:], et, depth)
}

func (c *clearer) l3(d []byte, et uint16, depth int) {
	switch et {
	case 0x0800:
		c.ipv4(d, depth)
	case 0x86dd:
		c.ipv6(d, depth)
	}
}

func (c *clearer) ipv4(d []byte, depth int) {
	if len(d) < 20 || depth > maxDepth {
		return
	}
	ihl := int(d[0]&15) * 4
	total := int(be16(d[2:4]))
	if ihl < 20 || len(d) < ihl || total < ihl {
		return // malformed: the rules read it as it is
	}
	if be16(d[6:8])&0x1fff != 0 {
		return // a fragment after the first: no transport header
	}
	// Only up to the IP length: Ethernet padding is no payload.
	c.transport(d[ihl:min(len(d), total)], d[9], total-ihl, d[12:20], depth)
}

func (c *clearer) ipv6(d []byte, depth int) {
	if len(d) < 40 || depth > maxDepth {
		return
	}
	plen := int(be16(d[4:6]))
	if plen == 0 {
		return // a jumbogram or a malformed header
	}
	end := min(len(d), 40+plen)
	next, off, length := d[6], 40, plen
	for hops := 0; hops < 8; hops++ {
		switch next {
		case 0, 43, 60:
			if off+8 > end {
				return
			}
			n := 8 + int(d[off+1])*8
			next, off, length = d[off], off+n, length-n
			continue
		case 44:
			if off+8 > end || be16(d[off+2:off+4])&0xfff8 != 0 {
				return
			}
			next, off, length = d[off], off+8, length-8
			continue
		}
		break
	}
	if off > end || length < 0 {
		return
	}
	c.transport(d[off:end], next, length, d[8:40], depth)
}

// transport clears the payload of a TCP or UDP segment, or walks into the
// tunnel it carries. length is the segment's length as the IP header has
// it (seg may be cut short by the snap length).
func (c *clearer) transport(seg []byte, proto byte, length int, addrs []byte, depth int) {
	switch proto {
	case 6:
		if len(seg) < 20 {
			return
		}
		doff := int(seg[12]>>4) * 4
		if doff < 20 || doff > len(seg) || be16(seg[0:2]) == portDNS || be16(seg[2:4]) == portDNS {
			return
		}
		c.zero(seg, doff, len(seg), seg[16:18], proto, length, addrs, false)
	case 17:
		if len(seg) < 8 {
			return
		}
		ulen := int(be16(seg[4:6]))
		sport, dport := be16(seg[0:2]), be16(seg[2:4])
		if ulen < 8 || sport == portDNS || dport == portDNS {
			return
		}
		end := min(len(seg), ulen)
		if tun := c.tunnelOf(sport, dport); tun != tunNone {
			if depth >= maxDepth {
				return
			}
			sum := seg[6:8]
			before := OnesSum(seg[8:end])
			c.tunnel(seg[8:end], tun, depth)
			c.fixSum(sum, proto, length, addrs, before, OnesSum(seg[8:end]), true)
			return
		}
		c.zero(seg, 8, end, seg[6:8], proto, length, addrs, true)
	case 4:
		c.ipv4(seg, depth+1) // IP in IP
	case 41:
		c.ipv6(seg, depth+1)
	case 47:
		c.gre(seg, depth)
	}
	// ICMP quotes the header of the packet it answers: kept, as is
	// every other protocol.
}

// Tunnels a UDP datagram carries, by its ports.
const (
	tunNone = iota
	tunVXLAN
	tunGeneve
	tunGPE
)

// tunnelOf: the destination port first, then the source port, as capture
// decode reads them.
func (c *clearer) tunnelOf(sport, dport uint16) int {
	for _, p := range [2]uint16{dport, sport} {
		switch {
		case c.vxlanPort(p):
			return tunVXLAN
		case p == portGeneve:
			return tunGeneve
		case p == portGPE:
			return tunGPE
		}
	}
	return tunNone
}

// tunnel walks into a tunnel's inner packet; the tunnel's own header
// stays, and a header that is not valid keeps all it carries (the rules
// read it as malformed).
func (c *clearer) tunnel(p []byte, tun, depth int) {
	if len(p) < 8 {
		return
	}
	switch tun {
	case tunVXLAN:
		if p[0]&0x08 != 0 {
			c.ethernet(p[8:], depth+1)
		}
	case tunGeneve:
		opt := 8 + int(p[0]&0x3f)*4
		if opt > len(p) {
			return
		}
		switch et := be16(p[2:4]); et {
		case 0x6558:
			c.ethernet(p[opt:], depth+1)
		case 0x0800, 0x86dd:
			c.l3(p[opt:], et, depth+1)
		}
	case tunGPE:
		switch p[3] {
		case 1:
			c.ipv4(p[8:], depth+1)
		case 2:
			c.ipv6(p[8:], depth+1)
		case 3:
			c.ethernet(p[8:], depth+1)
		}
	}
}

// gre walks into a GRE packet (version 0): Ethernet (Transparent Ethernet
// Bridging), IPv4 or IPv6 inside; its optional checksum follows.
func (c *clearer) gre(seg []byte, depth int) {
	if len(seg) < 4 || depth >= maxDepth {
		return
	}
	flags := be16(seg[0:2])
	if flags&7 != 0 {
		return
	}
	off := 4
	for _, bit := range []uint16{0x8000, 0x2000, 0x1000} {
		if flags&bit != 0 {
			off += 4
		}
	}
	if off > len(seg) {
		return
	}
	before := OnesSum(seg)
	switch et := be16(seg[2:4]); et {
	case 0x6558:
		c.ethernet(seg[off:], depth+1)
	case 0x0800, 0x86dd:
		c.l3(seg[off:], et, depth+1)
	}
	if flags&0x8000 != 0 {
		Adjust(seg[4:6], before, OnesSum(seg))
	}
}

// zero overwrites seg[from:to] with zeros and updates the checksum.
func (c *clearer) zero(seg []byte, from, to int, sum []byte, proto byte, length int, addrs []byte, udp bool) {
	if from >= to {
		return
	}
	p := seg[from:to]
	m := OnesSum(p) // from is even (TCP: 4-byte words; UDP: 8): the words align
	for i := range p {
		p[i] = 0
	}
	c.cleared += int64(len(p))
	c.fixSum(sum, proto, length, addrs, m, 0, udp)
}

// fixSum adjusts a transport checksum for covered data whose sum went
// from m to m2. A UDP checksum of zero (none) stays zero; one left to the
// NIC holds only the pseudo-header, which did not change.
func (c *clearer) fixSum(sum []byte, proto byte, length int, addrs []byte, m, m2 uint32, udp bool) {
	v := uint32(be16(sum))
	if udp && v == 0 {
		return
	}
	if v == PartialSum(addrs, proto, length, true) || v == PartialSum(addrs, proto, length, false) {
		return
	}
	Adjust(sum, m, m2)
	if udp && sum[0] == 0 && sum[1] == 0 {
		sum[0], sum[1] = 0xff, 0xff // a computed zero is sent as all ones
	}
}
