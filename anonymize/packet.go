package anonymize

import (
	"encoding/binary"
	"net/netip"

	"github.com/wincni/diag/capture/payload"
)

// VXLAN ports whose payload is an inner Ethernet frame: IANA's and the
// Linux kernel's default, as capture decode has them, and those the
// Anonymizer was told (VXLANPorts).
func (a *Anonymizer) vxlanPort(p uint16) bool {
	return p == 4789 || p == 8472 || a.extraPorts[p]
}

// geneveport is IANA's Geneve port, which capture decode reads too.
const genevePort = 6081

// Link types of the captures diag reads (capture/decode.go).
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

// frame maps the addresses of one packet in place: MACs of every Ethernet
// header (outer and, through VXLAN, inner), IPv4 and IPv6 addresses, ARP,
// and the header an ICMP error quotes. Every checksum is updated by the
// difference (RFC 1624), so a checksum that was wrong stays wrong by the
// same amount and one that was right stays right; a UDP checksum of zero
// (none) stays zero. A packet cut short by the snap length is mapped as
// far as it goes.
func (a *Anonymizer) frame(d []byte, link uint32) {
	switch link {
	case linkEthernet:
		a.ethernet(d, 0)
	case linkRaw, linkIPv4, linkIPv6, 12, 14:
		if len(d) > 0 {
			a.l3(d, versionType(d[0]))
		}
	case linkSLL2:
		// Protocol (2), reserved (2), ifindex (4), hatype (2), packet type
		// (1), address length (1), address (8).
		if len(d) >= 20 {
			if d[11] == 6 {
				a.mapMAC(d[12:18])
			}
			a.l3(d[20:], binary.BigEndian.Uint16(d[0:2]))
		}
	case linkSLL:
		if len(d) >= 16 {
			if binary.BigEndian.Uint16(d[4:6]) == 6 {
				a.mapMAC(d[6:12])
			}
			a.l3(d[16:], binary.BigEndian.Uint16(d[14:16]))
		}
	case linkNull, linkLoop:
		if len(d) >= 4 {
			a.l3(d[4:], versionType(d[4%len(d)]))
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

// depth bounds VXLAN in VXLAN.
func (a *Anonymizer) ethernet(d []byte, depth int) {
	if len(d) < 14 || depth > 3 {
		return
	}
	a.mapMAC(d[0:6])
	a.mapMAC(d[6:12])
	off, et := 12, binary.BigEndian.Uint16(d[12:14])
	for (et == 0x8100 || et == 0x88a8 || et == 0x9100) && off+6 <= len(d) {
		off += 4
		et = binary.BigEndian.Uint16(d[off : off+2])
	}
	a.l3depth(d[off+2:], et, depth)
}

func (a *Anonymizer) l3(d []byte, et uint16) { a.l3depth(d, et, 0) }

func (a *Anonymizer) l3depth(d []byte, et uint16, depth int) {
	switch et {
	case 0x0800:
		a.ipv4(d, depth)
	case 0x86dd:
		a.ipv6(d, depth)
	case 0x0806:
		// ARP for IPv4 over Ethernet: sender and target MAC and address.
		if len(d) >= 28 && binary.BigEndian.Uint16(d[2:4]) == 0x0800 && d[4] == 6 && d[5] == 4 {
			a.mapMAC(d[8:14])
			a.mapIP(d[14:18])
			a.mapMAC(d[18:24])
			a.mapIP(d[24:28])
		}
	}
}

func (a *Anonymizer) ipv4(d []byte, depth int) {
	if len(d) < 20 {
		return
	}
	ihl := int(d[0]&15) * 4
	if ihl < 20 || len(d) < ihl {
		return
	}
	before := make([]byte, 8)
	copy(before, d[12:20])
	a.mapIP(d[12:16])
	a.mapIP(d[16:20])
	adjust(d[10:12], before, d[12:20])
	// Fragments after the first carry no transport header.
	if binary.BigEndian.Uint16(d[6:8])&0x1fff != 0 {
		return
	}
	a.transport(d[ihl:], d[9], int(binary.BigEndian.Uint16(d[2:4]))-ihl, before, d[12:20], depth)
}

func (a *Anonymizer) ipv6(d []byte, depth int) {
	if len(d) < 40 {
		return
	}
	before := make([]byte, 32)
	copy(before, d[8:40])
	a.mapIP(d[8:24])
	a.mapIP(d[24:40])
	// Past the extension headers (hop-by-hop, routing, destination
	// options; a fragment other than the first carries no transport
	// header) to the transport header, whose pseudo-header has the
	// addresses.
	next, off, length := d[6], 40, int(binary.BigEndian.Uint16(d[4:6]))
	for hops := 0; hops < 8; hops++ {
		switch next {
		case 0, 43, 60:
			if off+8 > len(d) {
				return
			}
			n := 8 + int(d[off+1])*8
			next, off, length = d[off], off+n, length-n
			continue
		case 44:
			if off+8 > len(d) || binary.BigEndian.Uint16(d[off+2:off+4])&0xfff8 != 0 {
				return
			}
			next, off, length = d[off], off+8, length-8
			continue
		}
		break
	}
	if off > len(d) {
		return
	}
	a.transport(d[off:], next, length, before, d[8:40], depth)
}

// transport maps what is inside a TCP, UDP or ICMP segment and updates its
// checksum for the changed pseudo-header addresses and payload. length is
// the segment's length as the IP header has it (seg may be cut short).
func (a *Anonymizer) transport(seg []byte, proto byte, length int, oldAddrs, newAddrs []byte, depth int) {
	var sum []byte
	switch proto {
	case 6:
		if len(seg) < 18 {
			return
		}
		sum = seg[16:18]
	case 17:
		if len(seg) < 8 {
			return
		}
		sum = seg[6:8]
	case 1, 58:
		if len(seg) < 4 {
			return
		}
		sum = seg[2:4]

	default:
		return
	}
	// A checksum left to the NIC (transmit offload) holds only the
	// pseudo-header's sum, with the length or without it (Windows LSO):
	// it gets the new addresses' sum the same way.
	if proto != 1 {
		v := uint32(binary.BigEndian.Uint16(sum))
		for _, withLen := range []bool{true, false} {
			if v == payload.PartialSum(oldAddrs, proto, length, withLen) {
				binary.BigEndian.PutUint16(sum, uint16(payload.PartialSum(newAddrs, proto, length, withLen)))
				sum = nil
				break
			}
		}
	}
	old := append([]byte(nil), seg...)
	switch proto {
	case 17:
		src, dst := binary.BigEndian.Uint16(seg[0:2]), binary.BigEndian.Uint16(seg[2:4])
		switch {
		case a.vxlanPort(dst) || a.vxlanPort(src):
			// VXLAN with the I flag: an inner Ethernet frame follows.
			if len(seg) >= 16 && seg[8]&0x08 != 0 {
				a.ethernet(seg[16:], depth+1)
			}
		case dst == genevePort || src == genevePort:
			// Geneve: 8 bytes, options (their length in 4-byte words),
			// then a frame of the protocol type (Ethernet 0x6558).
			if len(seg) >= 16 {
				opt := int(seg[8]&0x3f) * 4
				if proto := binary.BigEndian.Uint16(seg[10:12]); proto == 0x6558 && len(seg) >= 16+opt {
					a.ethernet(seg[16+opt:], depth+1)
				}
			}
		}
	case 1:
		// An ICMP error quotes the header of the packet it answers.
		if t := seg[0]; (t == 3 || t == 4 || t == 5 || t == 11 || t == 12) && len(seg) >= 28 {
			if q := seg[8:]; q[0]>>4 == 4 {
				qb := append([]byte(nil), q[12:20]...)
				a.mapIP(q[12:16])
				a.mapIP(q[16:20])
				adjust(q[10:12], qb, q[12:20]) // the quoted header's own checksum
			}
		}
	case 58:
		// An ICMPv6 error quotes the IPv6 header of the packet it answers.
		if t := seg[0]; t >= 1 && t <= 4 && len(seg) >= 48 && seg[8]>>4 == 6 {
			a.mapIP(seg[16:32])
			a.mapIP(seg[32:48])
		}
	}
	if sum == nil || proto == 17 && sum[0] == 0 && sum[1] == 0 {
		return // offloaded, or no checksum
	}
	// Both sums skip the checksum field itself: it changes separately.
	o := sumOffset(proto)
	old[o], old[o+1] = 0, 0
	cur := append([]byte(nil), seg...)
	cur[o], cur[o+1] = 0, 0
	m, m2 := payload.OnesSum(old), payload.OnesSum(cur)
	if proto != 1 {
		// The pseudo-header's addresses (its length and protocol stay).
		m, m2 = payload.Fold(uint64(m)+uint64(payload.OnesSum(oldAddrs))), payload.Fold(uint64(m2)+uint64(payload.OnesSum(newAddrs)))
	}
	payload.Adjust(sum, m, m2)
	if proto == 17 && sum[0] == 0 && sum[1] == 0 {
		sum[0], sum[1] = 0xff, 0xff // a computed zero is sent as all ones
	}
}

func sumOffset(proto byte) int {
	switch proto {
	case 6:
		return 16
	case 17:
		return 6
	}
	return 2
}

// adjust updates the 16-bit ones'-complement checksum at sum for data that
// went from old to cur (RFC 1624, eqn. 3, over all words at once).
func adjust(sum []byte, old, cur []byte) {
	payload.Adjust(sum, payload.OnesSum(old), payload.OnesSum(cur))
}

func (a *Anonymizer) mapMAC(b []byte) {
	var m [6]byte
	copy(m[:], b)
	out := a.macs.MAC(m)
	copy(b, out[:])
}

func (a *Anonymizer) mapIP(b []byte) {
	addr, ok := netip.AddrFromSlice(b)
	if !ok {
		return
	}
	out := a.addrs.Addr(addr)
	if addr.Is4() {
		v := out.As4()
		copy(b, v[:])
	} else {
		v := out.As16()
		copy(b, v[:])
	}
}
