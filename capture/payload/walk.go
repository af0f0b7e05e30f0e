package payload

import (
	"encoding/binary"

	"github.com/wincni/diag/capture/wire"
)

// A Visitor is told the fields of a packet that Walker.Packet reaches, and
// may change them in place: anonymize maps addresses, the payload clearing
// zeroes payloads. The walk updates every checksum that covers what changed.
type Visitor interface {
	// MAC is a hardware address: of an Ethernet header (outer, or inner
	// through a tunnel), of a Linux cooked header, or one of ARP's.
	MAC(b []byte)
	// IP is a 4- or 16-byte address: of an IP header, of ARP, or of the
	// header an ICMP error quotes.
	IP(b []byte)
	// Payload is the application data of a TCP segment or a UDP datagram
	// that carries no tunnel the walk follows, as far as it was captured.
	Payload(p []byte, proto byte, sport, dport uint16)
}

// A Walker walks each packet it is given through its link header, IPv4
// and IPv6 (past extension headers and VLAN tags), ARP, TCP, UDP, ICMP
// errors and the tunnels: VXLAN, Geneve, VXLAN-GPE, GRE, IP in IP. It
// updates each checksum over what the Visitor changed by the difference
// (RFC 1624): a checksum that was right stays right, one that was wrong
// stays wrong by as much, a UDP checksum of zero (none) stays zero, and
// one left to the NIC (transmit offload: the pseudo-header's sum only,
// with the length or without it, as Windows LSO leaves it) gets the new
// pseudo-header's sum. A packet cut short by the snap length is walked as
// far as it goes; a header that is not valid ends the walk there.
type Walker struct {
	visit Visitor
	vxlan wire.Ports // 4789, 8472 and the ones given
	frags map[fragKey]*fragState
}

// NewWalker walks packets for v; vxlanPorts are VXLAN ports besides IANA's
// 4789 and the Linux kernel's (flannel's) 8472.
func NewWalker(v Visitor, vxlanPorts ...uint16) *Walker {
	w := &Walker{visit: v}
	w.vxlan.Add(wire.PortVXLAN)
	w.vxlan.Add(wire.PortVXLANLinux)
	for _, p := range vxlanPorts {
		w.vxlan.Add(p)
	}
	return w
}

// Packet walks one packet of the given link type.
func (w *Walker) Packet(d []byte, link uint32) {
	switch link {
	case linkEthernet:
		w.ethernet(d, 0)
	case linkRaw, linkIPv4, linkIPv6, linkDLTRaw, linkDLTRawOpenBSD:
		if len(d) > 0 {
			w.l3(d, versionType(d[0]), 0)
		}
	case linkSLL2:
		// Protocol (2), reserved (2), ifindex (4), hatype (2), packet
		// type (1), address length (1), address (8).
		if len(d) >= 20 {
			if d[11] == 6 {
				w.visit.MAC(d[12:18])
			}
			w.l3(d[20:], be16(d[0:2]), 0)
		}
	case linkSLL:
		// Packet type (2), hatype (2), address length (2), address (8),
		// protocol (2).
		if len(d) >= 16 {
			if be16(d[4:6]) == 6 {
				w.visit.MAC(d[6:12])
			}
			w.l3(d[16:], be16(d[14:16]), 0)
		}
	case linkNull, linkLoop:
		// A 4-byte address family, then the IP header.
		if len(d) > 4 {
			w.l3(d[4:], versionType(d[4]), 0)
		}
	}
}

// versionType is the EtherType of an IP header by its version nibble.
func versionType(b byte) uint16 {
	switch b >> 4 {
	case 4:
		return wire.EtherIPv4
	case 6:
		return wire.EtherIPv6
	}
	return 0
}

func (w *Walker) ethernet(d []byte, depth int) {
	if len(d) < 14 || depth > maxDepth {
		return
	}
	w.visit.MAC(d[0:6])
	w.visit.MAC(d[6:12])
	off, et := 12, be16(d[12:14])
	for (et == wire.EtherVLAN || et == wire.EtherQinQ || et == wire.EtherQinQv1) && off+6 <= len(d) {
		off += 4
		et = be16(d[off : off+2])
	}
	w.l3(d[off+2:], et, depth)
}

func (w *Walker) l3(d []byte, et uint16, depth int) {
	switch et {
	case wire.EtherIPv4:
		w.ipv4(d, depth)
	case wire.EtherIPv6:
		w.ipv6(d, depth)
	case wire.EtherARP:
		// IPv4 over Ethernet: sender and target hardware and protocol
		// addresses.
		if len(d) >= 28 && be16(d[2:4]) == wire.EtherIPv4 && d[4] == 6 && d[5] == 4 {
			w.visit.MAC(d[8:14])
			w.visit.IP(d[14:18])
			w.visit.MAC(d[18:24])
			w.visit.IP(d[24:28])
		}
	}
}

func (w *Walker) ipv4(d []byte, depth int) {
	if len(d) < 20 || depth > maxDepth {
		return
	}
	ihl := int(d[0]&15) * 4
	if ihl < 20 || len(d) < ihl {
		return
	}
	var old [8]byte
	copy(old[:], d[12:20])
	w.visit.IP(d[12:16])
	w.visit.IP(d[16:20])
	Adjust(d[10:12], OnesSum(old[:]), OnesSum(d[12:20]))
	// Up to the IP length where it is shorter than the capture: Ethernet
	// padding is not part of the segment.
	total := int(be16(d[2:4]))
	end := len(d)
	if total >= ihl && total < end {
		end = total
	}
	key := fragKey{id: uint32(be16(d[4:6])), proto: d[9]}
	copy(key.src[:], old[0:4])
	copy(key.dst[:], old[4:8])
	if be16(d[6:8])&0x1fff != 0 {
		w.continuation(key, d[ihl:end]) // no transport header: its data
		return
	}
	sum := w.transport(d[ihl:end], d[9], total-ihl, old[:], d[12:20], depth)
	if d[6]&0x20 != 0 { // more fragments follow
		w.firstFragment(key, d[ihl:end], sum)
	}
}

func (w *Walker) ipv6(d []byte, depth int) {
	if len(d) < 40 || depth > maxDepth {
		return
	}
	var old [32]byte
	copy(old[:], d[8:40])
	w.visit.IP(d[8:24])
	w.visit.IP(d[24:40])
	plen := int(be16(d[4:6]))
	end := len(d)
	if plen > 0 && 40+plen < end {
		end = 40 + plen
	}
	// Past the extension headers (a fragment other than the first
	// carries no transport header) to the transport header, whose
	// pseudo-header holds the addresses.
	next, off, length := d[6], 40, plen
	var first *fragKey // the datagram, when this is its first fragment
	for hops := 0; hops < 8; hops++ {
		switch next {
		case wire.IPv6HopByHop, wire.IPv6Routing, wire.IPv6DestOptions:
			if off+8 > end {
				return
			}
			n := 8 + int(d[off+1])*8
			next, off, length = d[off], off+n, length-n
			continue
		case wire.IPv6Fragment:
			if off+8 > end {
				return
			}
			key := fragKey{id: binary.BigEndian.Uint32(d[off+4 : off+8]), proto: d[off]}
			copy(key.src[:], old[0:16])
			copy(key.dst[:], old[16:32])
			if fo := be16(d[off+2 : off+4]); fo&0xfff8 != 0 {
				w.continuation(key, d[off+8:end])
				return
			} else if fo&1 != 0 {
				first = &key
			}
			next, off, length = d[off], off+8, length-8
			continue
		}
		break
	}
	if off > end {
		return
	}
	sum := w.transport(d[off:end], next, length, old[:], d[8:40], depth)
	if first != nil {
		w.firstFragment(*first, d[off:end], sum)
	}
}

// transport walks into a TCP, UDP or ICMP segment, or the tunnel it is,
// then updates its checksum. length is the segment's length as the IP
// header has it (seg may be cut short); oldAddrs and addrs are the
// pseudo-header's addresses before and after the Visitor saw them. It
// returns the checksum field that changes further in the datagram must
// update: none when the segment has no checksum, or one left to the NIC.
func (w *Walker) transport(seg []byte, proto byte, length int, oldAddrs, addrs []byte, depth int) []byte {
	var sum []byte // the checksum field, where the segment has one
	switch proto {
	case wire.IPProtoTCP:
		if len(seg) < 18 {
			return nil
		}
		sum = seg[16:18]
	case wire.IPProtoUDP:
		if len(seg) < 8 {
			return nil
		}
		sum = seg[6:8]
	case wire.IPProtoICMP, wire.IPProtoICMPv6:
		if len(seg) < 4 {
			return nil
		}
		sum = seg[2:4]
	case wire.IPProtoIPIP:
		w.ipv4(seg, depth+1) // the inner header has its own checksum
		return nil
	case wire.IPProtoIPv6:
		w.ipv6(seg, depth+1)
		return nil
	case wire.IPProtoGRE:
		w.gre(seg, depth)
		return nil
	default:
		return nil
	}
	// The sums over the segment before and after its inside was walked:
	// the checksum field is in both and drops out of the difference.
	before := OnesSum(seg)
	switch proto {
	case wire.IPProtoTCP:
		if len(seg) >= 20 {
			if doff := int(seg[12]>>4) * 4; doff >= 20 && doff <= len(seg) {
				sport, dport := be16(seg[0:2]), be16(seg[2:4])
				if p := seg[doff:]; (sport == wire.PortDNS || dport == wire.PortDNS) && len(p) >= 2 {
					w.dns(p[2:min(len(p), 2+int(be16(p[0:2])))]) // a length, then the message
				}
				w.visit.Payload(seg[doff:], proto, sport, dport)
			}
		}
	case wire.IPProtoUDP:
		w.udp(seg, depth)
	case wire.IPProtoICMP:
		if seg[0] == icmpRedirect && len(seg) >= 8 {
			w.visit.IP(seg[4:8]) // the gateway to use
		}
		// An error quotes the IPv4 header of the packet it answers.
		if t := seg[0]; (t == 3 || t == 4 || t == icmpRedirect || t == 11 || t == 12) && len(seg) >= 28 && seg[8]>>4 == 4 {
			q := seg[8:]
			var qold [8]byte
			copy(qold[:], q[12:20])
			w.visit.IP(q[12:16])
			w.visit.IP(q[16:20])
			Adjust(q[10:12], OnesSum(qold[:]), OnesSum(q[12:20])) // the quoted header's own
		}
	case wire.IPProtoICMPv6:
		// An error (types 1 to 4) quotes the IPv6 header it answers.
		if t := seg[0]; t >= 1 && t <= 4 && len(seg) >= 48 && seg[8]>>4 == 6 {
			w.visit.IP(seg[16:32])
			w.visit.IP(seg[32:48])
		}
		w.neighbourDiscovery(seg)
	}
	after := OnesSum(seg)

	v := uint32(be16(sum))
	if proto == wire.IPProtoUDP && v == 0 {
		return nil // no checksum
	}
	if proto != wire.IPProtoICMP { // ICMP for IPv4 has no pseudo-header
		for _, withLen := range [2]bool{true, false} {
			if v == PartialSum(oldAddrs, proto, length, withLen) {
				// Left to the NIC: the new pseudo-header's sum.
				if p := PartialSum(addrs, proto, length, withLen); p != v {
					sum[0], sum[1] = byte(p>>8), byte(p)
				}
				return nil
			}
		}
		before = Fold(uint64(before) + uint64(OnesSum(oldAddrs)))
		after = Fold(uint64(after) + uint64(OnesSum(addrs)))
	}
	adjustSum(sum, before, after, proto == wire.IPProtoUDP)
	return sum
}

// adjustSum is Adjust for a transport checksum: UDP sends a computed zero
// as all ones (zero is "none").
func adjustSum(sum []byte, m, m2 uint32, udp bool) {
	Adjust(sum, m, m2)
	if udp && sum[0] == 0 && sum[1] == 0 {
		sum[0], sum[1] = 0xff, 0xff
	}
}

// udp walks into a datagram's tunnel, or hands its payload to the Visitor.
func (w *Walker) udp(seg []byte, depth int) {
	// A length of 0 is a datagram over 64 KiB (RFC 2675 jumbograms; the
	// GSO and BIG TCP packets a Linux host captures before segmenting
	// them): it runs to the end of the segment.
	end := len(seg)
	switch ulen := int(be16(seg[4:6])); {
	case ulen == 0:
	case ulen < 8:
		return // malformed: read as it is
	case ulen < end:
		end = ulen
	}
	sport, dport := be16(seg[0:2]), be16(seg[2:4])
	tun := wire.TunnelOf(sport, dport, &w.vxlan)
	if tun == wire.TunnelNone {
		if sport == wire.PortDNS || dport == wire.PortDNS {
			w.dns(seg[8:end])
		}
		w.visit.Payload(seg[8:end], wire.IPProtoUDP, sport, dport)
		return
	}
	p := seg[8:end]
	if depth >= maxDepth || len(p) < 8 {
		return
	}
	// The tunnel's own header stays; one that is not valid keeps what
	// it carries.
	switch tun {
	case wire.TunnelVXLAN:
		// Whatever its flags: a VNI marked invalid still has a frame
		// behind it, which Wireshark shows and the rules read as such.
		w.ethernet(p[wire.VXLANHeaderLen:], depth+1)
	case wire.TunnelGeneve:
		opt := wire.GeneveHeaderLen + int(p[0]&0x3f)*4
		if opt > len(p) {
			return
		}
		switch et := be16(p[2:4]); et {
		case wire.EtherTEB:
			w.ethernet(p[opt:], depth+1)
		case wire.EtherIPv4, wire.EtherIPv6:
			w.l3(p[opt:], et, depth+1)
		}
	case wire.TunnelGPE:
		w.nextProtocol(p[3], p[8:], depth+1)
	}
}

// nextProtocol walks what VXLAN-GPE's or NSH's Next Protocol says follows:
// IPv4, IPv6, Ethernet or NSH (RFC 8300: a base header whose Length, in
// 4-byte words, covers its service path and context headers).
func (w *Walker) nextProtocol(next byte, p []byte, depth int) {
	switch next {
	case wire.NextIPv4:
		w.ipv4(p, depth)
	case wire.NextIPv6:
		w.ipv6(p, depth)
	case wire.NextEthernet:
		w.ethernet(p, depth)
	case wire.NextNSH:
		if len(p) < 8 || depth > maxDepth {
			return
		}
		n := int(p[1]&0x3f) * 4
		if n < 8 || n > len(p) {
			return
		}
		w.nextProtocol(p[3], p[n:], depth+1)
	}
}

// gre walks into a GRE packet (version 0): Ethernet (Transparent Ethernet
// Bridging), IPv4 or IPv6 inside; its optional checksum follows.
func (w *Walker) gre(seg []byte, depth int) {
	if len(seg) < 4 || depth >= maxDepth {
		return
	}
	flags := be16(seg[0:2])
	if flags&7 != 0 {
		return // a version other than 0
	}
	off := 4
	for _, bit := range [3]uint16{wire.GREChecksum, wire.GREKey, wire.GRESequence} {
		if flags&bit != 0 {
			off += 4
		}
	}
	if off > len(seg) {
		return
	}
	before := OnesSum(seg)
	switch et := be16(seg[2:4]); et {
	case wire.EtherTEB:
		w.ethernet(seg[off:], depth+1)
	case wire.EtherIPv4, wire.EtherIPv6:
		w.l3(seg[off:], et, depth+1)
	}
	if flags&wire.GREChecksum != 0 {
		Adjust(seg[4:6], before, OnesSum(seg))
	}
}
