package capture

import (
	"encoding/binary"
	"math/bits"
)

// The fast path: the tunnel's headers have fixed layouts, so the decoder
// reads them by offset instead of going through gopacket's layer machinery
// (which costs 5-10x as much and, with VXLAN in a single
// DecodingLayerParser, overwrites the outer headers with the inner ones).
// gopacket's layers are the oracle of the tests (corner_test.go decodes
// the same generated frames with them). Every read is bounds checked:
// truncated and hostile frames decode as far as their bytes go.

// Kinds of frame.
const (
	kindOther     uint8 = iota // not IP, or not decodable
	kindPlain                  // IP, not a tunnel
	kindVXLAN                  // VXLAN on a VXLAN port (possibly inside Geneve or VXLAN)
	kindGeneve                 // Geneve (UDP 6081) carrying no VXLAN
	kindGPE                    // VXLAN-GPE (UDP 4790): recognised, not decoded
	kindFragment               // a non-first IP fragment: no transport header
	kindMalformed              // VXLAN port, but not valid VXLAN
	kindGRE                    // GRE (ERSPAN mirrors, GRE tunnels): not decoded
)

// Malformations (CAP-08). The first two make a packet no VXLAN packet; the
// others are VXLAN packets whose inner packet is malformed.
const (
	malformedNone uint8 = iota
	malformedIFlag
	malformedShort
	malformedInnerHeader // inner IPv4 total length below its header length, header length < 20, IPv6 extension headers past the payload
	malformedInnerLength // inner IP length beyond the frame (not cut by the snap length, not an outer fragment)
	malformedInnerL4     // inner IP length too short for the transport header
	malformedInnerUDP    // inner UDP length beyond the IP payload, or under 8
	malformedKinds
)

// maxVXLANDepth bounds the VXLAN layers decoded in one frame,
// maxTunnelDepth the tunnel layers of any kind; maxVLANTags the
// 802.1Q/802.1ad tags followed in one Ethernet header.
const (
	maxVXLANDepth  = 4
	maxTunnelDepth = 8
	maxVLANTags    = 16
)

// tunnelRef is one VXLAN layer: the addresses of the IP header that
// carries it, and its VNI.
type tunnelRef struct {
	src, dst [16]byte
	vni      uint32
}

// frame holds what the decoder read from one packet. It is reused.
type frame struct {
	kind      uint8
	truncated bool // captured less than was on the wire

	// Outer (or only) IP header.
	v6                  bool
	src, dst            [16]byte // of the IP header carrying the first VXLAN layer
	ipLen               int      // outermost IP total length; 0 for BIG TCP/jumbo super-packets
	proto               uint8
	fragment, firstFrag bool
	sport, dport        uint16
	tcpFlags            uint8

	// VXLAN.
	vni       uint32
	malformed uint8 // the packet is not VXLAN (kindMalformed), or its inner packet is malformed
	oddFlags  bool  // flag or reserved bits beyond I set (RFC 7348: ignored on receipt)
	geneve    bool  // a Geneve layer (with its whole header) is in the frame
	nestedN   int   // VXLAN layers inside the first one
	nestedT   [maxVXLANDepth - 1]tunnelRef

	// The Ethernet frame the innermost VXLAN layer carries: its
	// destination MAC is the DR MAC of that layer's destination VTEP.
	inner       bool
	innerDstMAC [6]byte

	// An underlay ICMP "fragmentation needed" / ICMPv6 "packet too big"
	// quoting a tunnel packet (CAP-10).
	tooBig tooBigRef

	// Inner packet (the innermost one).
	innerBeyond     bool // inner IP length beyond the frame, not cut by the snap length
	badIPChecksum   bool // of any inner IPv4 header
	badL4Checksum   bool
	offloadArtefact bool // GSO/TSO/BIG TCP super-packet or partial checksum
	unverified      bool // the inner transport checksum could not be verified: cut by the snap length
	innerPkt
}

// innerPkt is the innermost packet, decoded as far as its bytes go.
type innerPkt struct {
	innerIP                bool
	innerV6                bool
	innerFrag              bool // an inner fragment: no transport checksum verdict
	innerSrc, innerDst     [16]byte
	innerProto             uint8
	innerLen               int // IP total length; 0 when the header says 0 (BIG TCP)
	innerRouted            bool
	innerFinal             [16]byte // the final destination of a source-routed packet
	innerID                uint16
	innerSport, innerDport uint16
	innerFlags             uint8
	innerSeq               uint32
	icmpType, icmpCode     uint8
	innerTCPPayload        int
	// Where the inner L4 checksum can be verified (verifyL4); l4Off is 0
	// when it cannot. l4Len is the length the checksum covers: the IP
	// payload, or a UDP datagram's own length (RFC 768).
	ipStart, l4Off, l4Len int
	// The fingerprint of the inner packet, for recognising copies.
	fpStart, fpEnd int
}

const (
	tcpFIN = 0x01
	tcpSYN = 0x02
	tcpRST = 0x04
	tcpACK = 0x10
)

// portSet is a bitmap of UDP ports.
type portSet [1024]uint64

func (s *portSet) add(p uint16)         { s[p>>6] |= 1 << (p & 63) }
func (s *portSet) has(p uint16) bool    { return s[p>>6]&(1<<(p&63)) != 0 }
func be16(b []byte, off int) uint16     { return binary.BigEndian.Uint16(b[off:]) }
func be32(b []byte, off int) uint32     { return binary.BigEndian.Uint32(b[off:]) }
func inRange(b []byte, off, n int) bool { return off >= 0 && n >= 0 && off+n <= len(b) && off+n >= off }

// UDP ports of the tunnels diag recognises besides the VXLAN ports.
const (
	portGeneve = 6081
	portGPE    = 4790
)

// Tunnel protocols a UDP datagram can carry.
const (
	tunNone uint8 = iota
	tunVXLAN
	tunGeneve
	tunGPE
)

// tunnelOf says what a UDP datagram carries, by its ports: the destination
// port first, then the source port, as a VTEP receives it (gopacket does
// the same; tshark tries the lower port first).
func tunnelOf(sport, dport uint16, ports *portSet) uint8 {
	for _, p := range [2]uint16{dport, sport} {
		switch {
		case ports.has(p):
			return tunVXLAN
		case p == portGeneve:
			return tunGeneve
		case p == portGPE:
			return tunGPE
		}
	}
	return tunNone
}

// decode reads a packet into f.
func decode(f *frame, data []byte, wireLen int, lt LinkType, vxlanPorts *portSet) {
	*f = frame{truncated: len(data) < wireLen}
	if lt == LinkTypeEthernet && decodeFast(f, data, vxlanPorts) {
		return
	}
	if f.kind != kindOther { // the fast path gave up after writing
		*f = frame{truncated: len(data) < wireLen}
	}
	decodeGeneral(f, data, lt, vxlanPorts)
}

// decodeGeneral reads any frame: every link type, VLAN tags, LLC/SNAP,
// IPv6 and IP options, fragments, every tunnel and what carries it.
func decodeGeneral(f *frame, data []byte, lt LinkType, vxlanPorts *portSet) {
	off, etype, ok := linkLayer(data, lt)
	if !ok {
		return
	}
	var h ipHdr
	if !parseIP(data, off, etype, &h) || h.bogus {
		return
	}
	f.kind = kindPlain
	f.v6, f.src, f.dst, f.proto, f.ipLen = h.v6, h.src, h.dst, h.proto, h.total
	f.fragment, f.firstFrag = h.frag, h.firstFrag
	if h.frag && !h.firstFrag {
		f.kind = kindFragment
		return
	}
	if h.l4 < 0 {
		return
	}
	// Ethernet pads short frames: read no further than the IP length says.
	data = h.trim(data)
	l4 := h.l4
	switch f.proto {
	case 6:
		if inRange(data, l4, 14) {
			f.sport, f.dport, f.tcpFlags = be16(data, l4), be16(data, l4+2), data[l4+13]
		}
		return
	case 17:
	case 47:
		f.kind = kindGRE
		return
	case 1, 58:
		f.underlayTooBig(data, l4, vxlanPorts)
		return
	default:
		return
	}
	if !inRange(data, l4, 8) {
		return
	}
	f.sport, f.dport = be16(data, l4), be16(data, l4+2)
	if ul := int(be16(data, l4+4)); ul >= 8 && l4+ul < len(data) {
		data = data[:l4+ul]
	}
	f.tunnels(data, l4+8, tunnelOf(f.sport, f.dport, vxlanPorts), f.src, f.dst, vxlanPorts)
}

// tunnels decodes the tunnel a UDP datagram carries (its payload at p),
// and every tunnel inside it, down to the innermost packet: VXLAN in
// VXLAN, VXLAN in Geneve (whose payload is Ethernet, IPv4 or IPv6), Geneve
// in VXLAN. A layer counts only when its whole header is there: a
// datagram to a tunnel port with no or too short a payload is plain UDP
// (or, on a VXLAN port, CAP-08's short header).
func (f *frame) tunnels(data []byte, p int, tun uint8, src, dst [16]byte, ports *portSet) {
	vxlans := 0
	for layer := 0; layer < maxTunnelDepth; layer++ {
		off, etype := 0, uint16(0) // the payload, and its EtherType (0: Ethernet)
		switch tun {
		case tunVXLAN:
			if !inRange(data, p, 8) {
				if layer == 0 && p < len(data) && !f.truncated {
					f.kind, f.malformed = kindMalformed, malformedShort
				}
				return
			}
			flags := data[p]
			vni := be32(data, p+4) >> 8
			if flags&0x08 == 0 {
				if layer == 0 {
					f.vni = vni
					f.kind, f.malformed = kindMalformed, malformedIFlag
				}
				return // inside another tunnel: the datagram carrying it is the inner packet
			}
			if vxlans == maxVXLANDepth {
				return
			}
			// RFC 7348: reserved bits are ignored on receipt. GBP (G bit)
			// and GPE-style bits (P, next protocol) on a VXLAN port are
			// counted, and the payload is Ethernet, as tshark decodes it.
			if flags != 0x08 || data[p+1]|data[p+2]|data[p+3]|data[p+7] != 0 {
				f.oddFlags = true
			}
			if vxlans == 0 {
				f.kind, f.src, f.dst, f.vni = kindVXLAN, src, dst, vni
			} else {
				f.nestedT[f.nestedN] = tunnelRef{src, dst, vni}
				f.nestedN++
			}
			vxlans++
			off = p + 8
			f.inner, f.innerDstMAC = false, [6]byte{}
			if inRange(data, off, 14) {
				f.inner = true
				copy(f.innerDstMAC[:], data[off:off+6])
			}
		case tunGeneve:
			// RFC 8926: version 0, 8 bytes and the options' length.
			if !inRange(data, p, 8) || data[p]>>6 != 0 || !inRange(data, p, 8+int(data[p]&0x3f)*4) {
				return
			}
			if f.kind == kindPlain {
				f.kind = kindGeneve
			}
			f.geneve = true
			off = p + 8 + int(data[p]&0x3f)*4
			switch pt := be16(data, p+2); pt {
			case 0x6558: // Ethernet
			case 0x0800, 0x86DD:
				etype = pt
			default:
				return
			}
		case tunGPE:
			if layer == 0 && inRange(data, p, 8) {
				f.kind = kindGPE
			}
			return
		default:
			return
		}
		d, udp, isrc, idst := f.innerFrame(data, off, etype)
		if udp < 0 {
			return
		}
		next := tunnelOf(f.innerSport, f.innerDport, ports)
		if next == tunNone {
			return
		}
		data, p, tun, src, dst = d, udp, next, isrc, idst
	}
}

// linkLayer returns the offset of the network header and its EtherType.
func linkLayer(data []byte, lt LinkType) (int, uint16, bool) {
	switch lt {
	case LinkTypeEthernet:
		return ethernet(data, 0)
	case LinkTypeLinuxSLL:
		if !inRange(data, 0, 16) {
			return 0, 0, false
		}
		return sllProtocol(data, 16, be16(data, 14))
	case 276: // LINKTYPE_LINUX_SLL2, what tcpdump -i any writes
		if !inRange(data, 0, 20) {
			return 0, 0, false
		}
		return sllProtocol(data, 20, be16(data, 0))
	case LinkTypeRaw, 12, 14, LinkTypeIPv4, LinkTypeIPv6:
		if len(data) == 0 {
			return 0, 0, false
		}
		switch data[0] >> 4 {
		case 4:
			return 0, 0x0800, true
		case 6:
			return 0, 0x86DD, true
		}
	case LinkTypeNull, LinkTypeLoop:
		if !inRange(data, 0, 4) {
			return 0, 0, false
		}
		fam := binary.LittleEndian.Uint32(data)
		if lt == LinkTypeLoop {
			fam = be32(data, 0)
		}
		switch fam {
		case 2:
			return 4, 0x0800, true
		case 24, 28, 30:
			return 4, 0x86DD, true
		}
	}
	return 0, 0, false
}

// ethernet reads an Ethernet II or IEEE 802.3 header at off, and any
// VLAN tags after it.
func ethernet(data []byte, off int) (int, uint16, bool) {
	if !inRange(data, off, 14) {
		return 0, 0, false
	}
	off, etype, ok := vlanTags(data, off+14, be16(data, off+12))
	if ok && etype <= 1500 {
		// An 802.3 length, not an EtherType: an LLC header follows.
		return snap(data, off)
	}
	return off, etype, ok
}

// snap reads an 802.2 LLC header at off: with SNAP (DSAP and SSAP 0xAA,
// UI) and an OUI of 00-00-00 (RFC 1042) or 00-00-F8 (Cisco), the
// EtherType it carries, as tshark follows it. Other LLC frames (spanning
// tree, NetBIOS) carry no IP.
func snap(data []byte, off int) (int, uint16, bool) {
	if !inRange(data, off, 8) || data[off] != 0xaa || data[off+1] != 0xaa || data[off+2] != 0x03 ||
		data[off+3] != 0 || data[off+4] != 0 || data[off+5] != 0 && data[off+5] != 0xf8 {
		return 0, 0, false
	}
	return vlanTags(data, off+8, be16(data, off+6))
}

// sllProtocol follows the protocol type of a Linux cooked header: an
// EtherType, or 4 for an 802.2 LLC frame without its 802.3 header.
func sllProtocol(data []byte, off int, proto uint16) (int, uint16, bool) {
	if proto == 4 {
		return snap(data, off)
	}
	return vlanTags(data, off, proto)
}

// vlanTags skips any number (up to maxVLANTags) of 802.1Q, 802.1ad and
// pre-standard QinQ (0x9100) tags.
func vlanTags(data []byte, off int, etype uint16) (int, uint16, bool) {
	for i := 0; etype == 0x8100 || etype == 0x88A8 || etype == 0x9100; i++ {
		if i == maxVLANTags || !inRange(data, off, 4) {
			return 0, 0, false
		}
		etype = be16(data, off+2)
		off += 4
	}
	return off, etype, true
}

// ipHdr is what parseIP read of an IP header.
type ipHdr struct {
	v6              bool
	src, dst        [16]byte
	proto           uint8
	start, ihl, l4  int // l4 is -1 when the transport header cannot be found
	total           int // total length from the header (IPv6: payload + 40); 0 when it says 0
	id              uint16
	frag, firstFrag bool
	bogus           bool // the header contradicts itself
	// A source route not yet exhausted (IPv4 LSRR/SSRR, an IPv6 routing
	// header with segments left): the final destination, which the
	// transport checksum's pseudo-header holds instead of dst.
	routed bool
	final  [16]byte
}

// parseIP reads the IPv4 or IPv6 header at off, following IPv6 extension
// headers (hop-by-hop, routing, destination options, fragment, AH) to the
// transport header. It returns false when there is no IP header to read.
func parseIP(data []byte, off int, etype uint16, h *ipHdr) bool {
	h.start, h.l4 = off, -1
	switch etype {
	case 0x0800:
		if !inRange(data, off, 20) || data[off]>>4 != 4 {
			return false
		}
		h.ihl = int(data[off]&0x0f) * 4
		h.total = int(be16(data, off+2))
		h.id = be16(data, off+4)
		frag := be16(data, off+6)
		h.frag, h.firstFrag = frag&0x2000 != 0 || frag&0x1fff != 0, frag&0x1fff == 0
		h.proto = data[off+9]
		copy(h.src[12:], data[off+12:off+16])
		copy(h.dst[12:], data[off+16:off+20])
		h.src[10], h.src[11], h.dst[10], h.dst[11] = 0xff, 0xff, 0xff, 0xff
		if h.ihl < 20 || h.total != 0 && h.total < h.ihl {
			h.bogus = true
			return true
		}
		if inRange(data, off, h.ihl) {
			h.l4 = off + h.ihl
			if h.ihl > 20 {
				h.sourceRoute4(data[off+20 : off+h.ihl])
			}
		}
		return true
	case 0x86DD:
		if !inRange(data, off, 40) || data[off]>>4 != 6 {
			return false
		}
		h.v6, h.ihl = true, 40
		if pl := int(be16(data, off+4)); pl != 0 {
			h.total = pl + 40
		}
		copy(h.src[:], data[off+8:off+24])
		copy(h.dst[:], data[off+24:off+40])
		next, p := data[off+6], off+40
		h.firstFrag = true
	walk:
		for i := 0; i < 8; i++ {
			switch next {
			case 0, 43, 60: // hop-by-hop, routing, destination options
				if !inRange(data, p, 2) {
					h.proto = next
					return true
				}
				if next == 43 {
					h.routing6(data, p)
				}
				next, p = data[p], p+(int(data[p+1])+1)*8
			case 51: // AH
				if !inRange(data, p, 2) {
					h.proto = next
					return true
				}
				next, p = data[p], p+(int(data[p+1])+2)*4
			case 44:
				if !inRange(data, p, 8) {
					h.proto = next
					return true
				}
				fo := be16(data, p+2)
				h.frag, h.firstFrag = true, fo&0xfff8 == 0
				next, p = data[p], p+8
				if !h.firstFrag {
					break walk // the rest is a later fragment's bytes
				}
			default:
				break walk
			}
		}
		h.proto = next
		if h.total != 0 && p > off+h.total {
			h.bogus = true
			return true
		}
		if p <= len(data) {
			h.l4 = p
		}
		return true
	}
	return false
}

// sourceRoute4 finds the final destination in IPv4 options: the last
// address of a loose or strict source route whose pointer has not gone
// past it (RFC 791). Once the route is exhausted the header's
// destination is the final one.
func (h *ipHdr) sourceRoute4(opts []byte) {
	for i := 0; i < len(opts); {
		switch t := opts[i]; t {
		case 0: // end of options
			return
		case 1: // no-operation
			i++
			continue
		case 131, 137: // LSRR, SSRR
			if i+3 > len(opts) {
				return
			}
			n, ptr := int(opts[i+1]), int(opts[i+2])
			if n >= 7 && i+n <= len(opts) && ptr <= n {
				copy(h.final[12:], opts[i+n-4:i+n])
				h.final[10], h.final[11] = 0xff, 0xff
				h.routed = true
			}
			return
		}
		if i+1 >= len(opts) || opts[i+1] < 2 {
			return
		}
		i += int(opts[i+1])
	}
}

// routing6 finds the final destination in an IPv6 routing header at p
// with segments left (RFC 8200 §8.1): the last address of type 0 and 2
// (Mobile IPv6) headers, segment list[0] of a segment routing header
// (type 4, RFC 8754). Other types keep the header's destination.
func (h *ipHdr) routing6(data []byte, p int) {
	if !inRange(data, p, 8) || data[p+3] == 0 {
		return
	}
	n := int(data[p+1]) / 2 // addresses
	at := -1
	switch data[p+2] {
	case 0, 2:
		at = p + 8 + (n-1)*16
	case 4:
		at = p + 8
	}
	if n >= 1 && at >= 0 && inRange(data, at, 16) {
		copy(h.final[:], data[at:at+16])
		h.routed = true
	}
}

// trim cuts what follows the IP packet (Ethernet padding).
func (h *ipHdr) trim(data []byte) []byte {
	if end := h.start + h.total; h.total > 0 && end >= h.l4 && end < len(data) {
		return data[:end]
	}
	return data
}

// innerFrame reads an encapsulated packet at off as far as its bytes go,
// into f.innerPkt: an Ethernet frame when etype is 0, else a packet of
// that EtherType (Geneve carries IPv4 and IPv6 without Ethernet). When it
// carries a whole UDP header (and is no later fragment) it returns the
// offset of the UDP payload, with the frame's bytes cut to the UDP length
// and the IP addresses; else -1.
func (f *frame) innerFrame(data []byte, off int, etype uint16) ([]byte, int, [16]byte, [16]byte) {
	f.innerPkt = innerPkt{}
	var h ipHdr
	if etype == 0 {
		var ok bool
		if off, etype, ok = ethernet(data, off); !ok {
			return data, -1, h.src, h.dst
		}
	}
	if !parseIP(data, off, etype, &h) {
		return data, -1, h.src, h.dst
	}
	if h.bogus {
		f.malformed = malformedInnerHeader
		return data, -1, h.src, h.dst
	}
	f.innerIP, f.innerV6, f.innerSrc, f.innerDst = true, h.v6, h.src, h.dst
	f.innerProto, f.innerLen, f.innerID, f.innerFrag = h.proto, h.total, h.id, h.frag
	f.innerRouted, f.innerFinal = h.routed, h.final
	if h.total == 0 {
		f.offloadArtefact = true // BIG TCP: the length does not fit 16 bits
	} else if !h.v6 && inRange(data, off, h.ihl) && checksum(data[off:off+h.ihl], 0) != 0 {
		f.badIPChecksum = true
	}
	if h.l4 < 0 || h.frag && !h.firstFrag {
		return data, -1, h.src, h.dst
	}
	l4, udp := h.l4, -1
	if h.total > 0 && !inRange(data, off, h.total) && !f.truncated && !f.fragment {
		f.innerBeyond = true
	}
	data = h.trim(data)
	switch h.proto {
	case 6:
		if inRange(data, l4, 4) {
			f.innerSport, f.innerDport = be16(data, l4), be16(data, l4+2)
		}
		if inRange(data, l4, 8) {
			f.innerSeq = be32(data, l4+4)
		}
		if inRange(data, l4, 14) {
			f.innerFlags = data[l4+13]
			if h.total > 0 {
				f.innerTCPPayload = max(0, h.total-(l4-off)-int(data[l4+12]>>4)*4)
			}
		}
	case 17:
		if inRange(data, l4, 4) {
			f.innerSport, f.innerDport = be16(data, l4), be16(data, l4+2)
		}
		if inRange(data, l4, 8) && !h.frag {
			udp = l4 + 8
			// The checksum is verified over the UDP length (prepareL4),
			// so the IP packet goes to it whole; a tunnel inside ends
			// where the datagram does.
			ipData := data
			if ul := int(be16(data, l4+4)); ul >= 8 && l4+ul < len(data) {
				data = data[:l4+ul]
			}
			f.fpStart, f.fpEnd = off, min(len(data), l4+20)
			f.prepareL4(ipData, off, l4)
			return data, udp, h.src, h.dst
		}
	case 1, 58:
		if inRange(data, l4, 2) {
			f.icmpType, f.icmpCode = data[l4], data[l4+1]
		}
	default:
		return data, udp, h.src, h.dst
	}
	f.fpStart, f.fpEnd = off, min(len(data), l4+20)
	f.prepareL4(data, off, l4)
	return data, udp, h.src, h.dst
}

// prepareL4 decides whether the inner transport checksum can be verified:
// only when the whole inner packet was captured and is no fragment (the
// checksum covers the whole datagram). Size alone never excuses a
// checksum: a jumbo frame's is verified like any other; super-packets of
// segmentation offload show themselves by a partial checksum (verifyL4),
// a zero length, or a length beyond the frame (the analyzer judges it).
func (f *frame) prepareL4(data []byte, ipStart, l4 int) {
	if f.innerFrag || f.innerLen == 0 || f.innerProto == 58 && !f.innerV6 || f.innerProto == 1 && f.innerV6 {
		return
	}
	if !inRange(data, ipStart, f.innerLen) {
		if f.truncated {
			f.unverified = true
		}
		return
	}
	minHdr := 8
	switch f.innerProto {
	case 6:
		minHdr = 20
	case 1, 58:
		minHdr = 4
	}
	n := ipStart + f.innerLen - l4
	if n < minHdr {
		f.malformed = malformedInnerL4
		return
	}
	if f.innerProto == 17 {
		// RFC 768: the datagram is as long as its UDP length says, which
		// may end before the IP payload does; one said to end beyond it
		// (or inside its own header) is a length error, and its checksum
		// covers bytes that are not there: no verdict.
		ul := int(be16(data, l4+4))
		if ul < 8 || ul > n {
			f.malformed = malformedInnerUDP
			return
		}
		n = ul
	}
	f.ipStart, f.l4Off, f.l4Len = ipStart, l4, n
}

// verifyL4 checks the inner transport checksum prepared by prepareL4. A
// checksum that holds only the pseudo-header (transmit offload not done
// yet, on the sending side; Windows LSO leaves it without the length) is
// an artefact, not corruption. UDP checksum 0 means none over IPv4, and is
// illegal over IPv6 (RFC 8200 §8.1; RFC 6935 allows it for the outer
// header of a tunnel only, which is not checked here).
func (f *frame) verifyL4(data []byte) {
	if f.l4Off == 0 || f.l4Off < f.ipStart || !inRange(data, f.l4Off, f.l4Len) {
		return
	}
	seg := data[f.l4Off : f.l4Off+f.l4Len]
	switch f.innerProto {
	case 1:
		if checksum(seg, 0) != 0 {
			f.badL4Checksum = true
		}
		return
	case 17:
		if len(seg) >= 8 && be16(seg, 6) == 0 {
			if f.innerV6 {
				f.badL4Checksum = true
			}
			return
		}
	}
	sum := pseudoHeader(data, f.ipStart, f.innerV6, f.innerProto, len(seg))
	if f.innerRouted {
		sum = f.routedPseudoHeader(len(seg))
	}
	if checksum(seg, sum) == 0 {
		return
	}
	field := 16
	switch f.innerProto {
	case 17:
		field = 6
	case 58:
		field = 2
	}
	if len(seg) >= field+2 {
		if v := be16(seg, field); v == fold(sum) || v == fold(sum-uint32(len(seg))) {
			f.offloadArtefact = true
			return
		}
	}
	f.badL4Checksum = true
}

func pseudoHeader(data []byte, ipStart int, v6 bool, proto uint8, length int) uint32 {
	var sum uint32
	if v6 {
		for i := 8; i < 40; i += 2 {
			sum += uint32(be16(data, ipStart+i))
		}
	} else {
		// The addresses as two 32-bit words, each split in its halves.
		s, d := be32(data, ipStart+12), be32(data, ipStart+16)
		sum = s>>16 + s&0xffff + d>>16 + d&0xffff
	}
	return sum + uint32(proto) + uint32(length)
}

// routedPseudoHeader is the pseudo-header sum of a source-routed packet:
// the source and the final destination.
func (f *innerPkt) routedPseudoHeader(length int) uint32 {
	sum := uint32(f.innerProto) + uint32(length)
	from := 0
	if !f.innerV6 {
		from = 12
	}
	for _, a := range [2]*[16]byte{&f.innerSrc, &f.innerFinal} {
		for i := from; i < 16; i += 2 {
			sum += uint32(a[i])<<8 | uint32(a[i+1])
		}
	}
	return sum
}

func fold(sum uint32) uint16 {
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return uint16(sum)
}

// checksum returns the one's complement of the one's complement sum of b
// (plus an initial sum): 0 when a received checksum is right. The sum does
// not depend on byte order (RFC 1071), so it adds native little-endian
// 32-bit words, 32 bytes a round, and swaps the bytes of the result.
func checksum(b []byte, initial uint32) uint16 {
	// One's-complement sum in 64-bit words, the carries added back at the
	// end (RFC 1071: the sum is independent of byte order and word size as
	// long as the end-around carries are kept).
	var s, c, carry uint64
	for len(b) >= 32 {
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b), 0)
		carry += c
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[8:]), 0)
		carry += c
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[16:]), 0)
		carry += c
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[24:]), 0)
		carry += c
		b = b[32:]
	}
	for len(b) >= 8 {
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b), 0)
		carry += c
		b = b[8:]
	}
	s, c = bits.Add64(s, carry, 0)
	s += c
	// Fold to 32 bits; the tail adds at most 2^32 more.
	s = s>>32 + s&0xffffffff
	for len(b) >= 4 {
		s += uint64(binary.LittleEndian.Uint32(b))
		b = b[4:]
	}
	if len(b) >= 2 {
		s += uint64(binary.LittleEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint64(b[0])
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	// Back to network byte order, then add the (big-endian) initial sum.
	sum := uint32(s>>8|s<<8) & 0xffff
	sum += initial
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}
