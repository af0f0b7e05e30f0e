package capture

import (
	"encoding/binary"

	"github.com/wincni/diag/capture/wire"
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

func be16(b []byte, off int) uint16     { return binary.BigEndian.Uint16(b[off:]) }
func be32(b []byte, off int) uint32     { return binary.BigEndian.Uint32(b[off:]) }
func inRange(b []byte, off, n int) bool { return off >= 0 && n >= 0 && off+n <= len(b) && off+n >= off }

// decode reads a packet into f.
func decode(f *frame, data []byte, wireLen int, lt LinkType, vxlanPorts *wire.Ports) {
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
func decodeGeneral(f *frame, data []byte, lt LinkType, vxlanPorts *wire.Ports) {
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
	case wire.IPProtoTCP:
		if inRange(data, l4, 14) {
			f.sport, f.dport, f.tcpFlags = be16(data, l4), be16(data, l4+2), data[l4+13]
		}
		return
	case wire.IPProtoUDP:
	case wire.IPProtoGRE:
		f.kind = kindGRE
		return
	case wire.IPProtoICMP, wire.IPProtoICMPv6:
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
	f.tunnels(data, l4+8, wire.TunnelOf(f.sport, f.dport, vxlanPorts), f.src, f.dst, vxlanPorts)
}

// tunnels decodes the tunnel a UDP datagram carries (its payload at p),
// and every tunnel inside it, down to the innermost packet: VXLAN in
// VXLAN, VXLAN in Geneve (whose payload is Ethernet, IPv4 or IPv6), Geneve
// in VXLAN. A layer counts only when its whole header is there: a
// datagram to a tunnel port with no or too short a payload is plain UDP
// (or, on a VXLAN port, CAP-08's short header).
func (f *frame) tunnels(data []byte, p int, tun wire.Tunnel, src, dst [16]byte, ports *wire.Ports) {
	vxlans := 0
	for layer := 0; layer < maxTunnelDepth; layer++ {
		off, etype := 0, uint16(0) // the payload, and its EtherType (0: Ethernet)
		switch tun {
		case wire.TunnelVXLAN:
			if !inRange(data, p, wire.VXLANHeaderLen) {
				if layer == 0 && p < len(data) && !f.truncated {
					f.kind, f.malformed = kindMalformed, malformedShort
				}
				return
			}
			flags := data[p]
			vni := be32(data, p+4) >> 8
			if flags&wire.VXLANFlagI == 0 {
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
			if flags != wire.VXLANFlagI || data[p+1]|data[p+2]|data[p+3]|data[p+7] != 0 {
				f.oddFlags = true
			}
			if vxlans == 0 {
				f.kind, f.src, f.dst, f.vni = kindVXLAN, src, dst, vni
			} else {
				f.nestedT[f.nestedN] = tunnelRef{src, dst, vni}
				f.nestedN++
			}
			vxlans++
			off = p + wire.VXLANHeaderLen
			f.inner, f.innerDstMAC = false, [6]byte{}
			if inRange(data, off, 14) {
				f.inner = true
				copy(f.innerDstMAC[:], data[off:off+6])
			}
		case wire.TunnelGeneve:
			// RFC 8926: version 0, 8 bytes and the options' length.
			if !inRange(data, p, wire.GeneveHeaderLen) || data[p]>>6 != 0 || !inRange(data, p, wire.GeneveHeaderLen+int(data[p]&0x3f)*4) {
				return
			}
			if f.kind == kindPlain {
				f.kind = kindGeneve
			}
			f.geneve = true
			off = p + wire.GeneveHeaderLen + int(data[p]&0x3f)*4
			switch pt := be16(data, p+2); pt {
			case wire.EtherTEB: // Ethernet
			case wire.EtherIPv4, wire.EtherIPv6:
				etype = pt
			default:
				return
			}
		case wire.TunnelGPE:
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
		next := wire.TunnelOf(f.innerSport, f.innerDport, ports)
		if next == wire.TunnelNone {
			return
		}
		data, p, tun, src, dst = d, udp, next, isrc, idst
	}
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
	case wire.IPProtoTCP:
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
	case wire.IPProtoUDP:
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
	case wire.IPProtoICMP, wire.IPProtoICMPv6:
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
