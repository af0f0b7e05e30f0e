package capture

import (
	"encoding/binary"

	"github.com/gopacket/gopacket/layers"
)

// The fast path: VXLAN's headers have fixed layouts, so the decoder reads
// them by offset instead of going through gopacket's layer machinery (which
// costs 5-10x as much and, with VXLAN in a single DecodingLayerParser,
// overwrites the outer headers with the inner ones). Every read is bounds
// checked: truncated and hostile frames decode as far as their bytes go.

// Kinds of frame.
const (
	kindOther     uint8 = iota // not IP, or not decodable
	kindPlain                  // IP, not a tunnel
	kindVXLAN                  // VXLAN on a VXLAN port
	kindGeneve                 // UDP 6081: recognised, not decoded
	kindGPE                    // VXLAN-GPE (UDP 4790, or the P bit on a VXLAN port)
	kindFragment               // a non-first IP fragment: no transport header
	kindMalformed              // VXLAN port, but not valid VXLAN
)

// Malformations of VXLAN (CAP-08).
const (
	malformedNone uint8 = iota
	malformedIFlag
	malformedShort
)

// frame holds what the decoder read from one packet. It is reused.
type frame struct {
	kind      uint8
	truncated bool // captured less than was on the wire

	// Outer (or only) IP header.
	v6                  bool
	src, dst            [16]byte
	ipLen               int // IP total length; 0 for BIG TCP/jumbo super-packets
	proto               uint8
	fragment, firstFrag bool
	sport, dport        uint16
	tcpFlags            uint8

	// VXLAN.
	vni       uint32
	malformed uint8

	// Inner frame.
	inner                  bool
	innerDstMAC            [6]byte
	innerIP                bool
	innerV6                bool
	innerSrc, innerDst     [16]byte
	innerProto             uint8
	innerLen               int
	innerID                uint16
	innerSport, innerDport uint16
	innerFlags             uint8
	innerSeq               uint32
	icmpType, icmpCode     uint8
	nested                 bool // inner UDP to a VXLAN port: a tunnel in the tunnel
	badIPChecksum          bool
	badL4Checksum          bool
	offloadArtefact        bool // GSO/TSO/BIG TCP super-packet or partial checksum
	innerTCPPayload        int
	// Where the inner L4 checksum can be verified (verifyL4); l4Off is 0
	// when it cannot.
	ipStart, l4Off int
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
func inRange(b []byte, off, n int) bool { return off >= 0 && n >= 0 && off+n <= len(b) }

// decode reads a packet into f.
func decode(f *frame, data []byte, wireLen int, lt layers.LinkType, vxlanPorts *portSet) {
	*f = frame{truncated: len(data) < wireLen}
	off, etype, ok := linkLayer(data, lt)
	if !ok {
		return
	}
	l4, _ := f.outerIP(data, off, etype)
	if l4 < 0 {
		return
	}
	// Ethernet pads short frames: read no further than the IP length says.
	if ipEnd := off + f.ipLen; f.ipLen > 0 && ipEnd >= l4 && ipEnd < len(data) {
		data = data[:ipEnd]
	}
	switch f.proto {
	case 6:
		if inRange(data, l4, 14) {
			f.sport, f.dport, f.tcpFlags = be16(data, l4), be16(data, l4+2), data[l4+13]
		}
		return
	case 17:
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
	payload := l4 + 8
	switch {
	case f.dport == 6081 || f.sport == 6081 && !vxlanPorts.has(f.dport):
		f.kind = kindGeneve
		return
	case f.dport == 4790 && !vxlanPorts.has(4790):
		f.kind = kindGPE
		return
	case !vxlanPorts.has(f.dport) && !vxlanPorts.has(f.sport):
		return
	}
	if f.fragment && !f.firstFrag {
		return
	}
	if !inRange(data, payload, 8) {
		if !f.truncated {
			f.kind, f.malformed = kindMalformed, malformedShort
		}
		return
	}
	flags := data[payload]
	if flags&0x04 != 0 && data[payload+3] != 0 {
		f.kind = kindGPE // P bit and a next-protocol: VXLAN-GPE on this port
		return
	}
	f.vni = be32(data, payload+4) >> 8
	if flags&0x08 == 0 {
		f.kind, f.malformed = kindMalformed, malformedIFlag
		return
	}
	f.kind = kindVXLAN
	f.innerFrame(data, payload+8, vxlanPorts)
}

// linkLayer returns the offset of the network header and its EtherType.
func linkLayer(data []byte, lt layers.LinkType) (int, uint16, bool) {
	switch lt {
	case layers.LinkTypeEthernet:
		return ethernet(data, 0)
	case layers.LinkTypeLinuxSLL:
		if !inRange(data, 0, 16) {
			return 0, 0, false
		}
		return 16, be16(data, 14), true
	case 276: // LINKTYPE_LINUX_SLL2, what tcpdump -i any writes
		if !inRange(data, 0, 20) {
			return 0, 0, false
		}
		return 20, be16(data, 0), true
	case layers.LinkTypeRaw, 12, 14, layers.LinkTypeIPv4, layers.LinkTypeIPv6:
		if len(data) == 0 {
			return 0, 0, false
		}
		switch data[0] >> 4 {
		case 4:
			return 0, 0x0800, true
		case 6:
			return 0, 0x86DD, true
		}
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if !inRange(data, 0, 4) {
			return 0, 0, false
		}
		fam := binary.LittleEndian.Uint32(data)
		if lt == layers.LinkTypeLoop {
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

func ethernet(data []byte, off int) (int, uint16, bool) {
	if !inRange(data, off, 14) {
		return 0, 0, false
	}
	etype := be16(data, off+12)
	off += 14
	for i := 0; i < 2 && (etype == 0x8100 || etype == 0x88A8); i++ {
		if !inRange(data, off, 4) {
			return 0, 0, false
		}
		etype = be16(data, off+2)
		off += 4
	}
	return off, etype, true
}

// outerIP reads the outer IP header and returns the transport offset (-1
// when there is none to read).
func (f *frame) outerIP(data []byte, off int, etype uint16) (int, int) {
	switch etype {
	case 0x0800:
		if !inRange(data, off, 20) || data[off]>>4 != 4 {
			return -1, 0
		}
		ihl := int(data[off]&0x0f) * 4
		if ihl < 20 || !inRange(data, off, ihl) {
			return -1, 0
		}
		f.kind = kindPlain
		f.ipLen = int(be16(data, off+2))
		frag := be16(data, off+6)
		f.fragment = frag&0x2000 != 0 || frag&0x1fff != 0
		f.firstFrag = frag&0x1fff == 0
		f.proto = data[off+9]
		copy(f.src[12:], data[off+12:off+16])
		copy(f.dst[12:], data[off+16:off+20])
		f.src[10], f.src[11], f.dst[10], f.dst[11] = 0xff, 0xff, 0xff, 0xff
		if f.fragment && !f.firstFrag {
			f.kind = kindFragment
			return -1, 0
		}
		return off + ihl, f.ipLen - ihl
	case 0x86DD:
		if !inRange(data, off, 40) || data[off]>>4 != 6 {
			return -1, 0
		}
		f.kind, f.v6 = kindPlain, true
		f.ipLen = int(be16(data, off+4))
		if f.ipLen != 0 {
			f.ipLen += 40
		}
		copy(f.src[:], data[off+8:off+24])
		copy(f.dst[:], data[off+24:off+40])
		next, p := data[off+6], off+40
		f.firstFrag = true
		for i := 0; i < 8; i++ {
			switch next {
			case 0, 43, 60:
				if !inRange(data, p, 2) {
					return -1, 0
				}
				next, p = data[p], p+(int(data[p+1])+1)*8
				continue
			case 44:
				if !inRange(data, p, 8) {
					return -1, 0
				}
				fo := be16(data, p+2)
				f.fragment, f.firstFrag = true, fo&0xfff8 == 0
				next, p = data[p], p+8
				if !f.firstFrag {
					f.kind = kindFragment
					return -1, 0
				}
				continue
			}
			break
		}
		f.proto = next
		return p, 0
	}
	return -1, 0
}

// innerFrame reads the encapsulated Ethernet frame.
func (f *frame) innerFrame(data []byte, off int, vxlanPorts *portSet) {
	if !inRange(data, off, 14) {
		return
	}
	f.inner = true
	copy(f.innerDstMAC[:], data[off:off+6])
	off, etype, ok := ethernet(data, off)
	if !ok {
		return
	}
	var l4 int
	switch etype {
	case 0x0800:
		if !inRange(data, off, 20) || data[off]>>4 != 4 {
			return
		}
		ihl := int(data[off]&0x0f) * 4
		if ihl < 20 || !inRange(data, off, ihl) {
			return
		}
		f.innerIP = true
		f.innerLen = int(be16(data, off+2))
		f.innerID = be16(data, off+4)
		f.innerProto = data[off+9]
		copy(f.innerSrc[12:], data[off+12:off+16])
		copy(f.innerDst[12:], data[off+16:off+20])
		f.innerSrc[10], f.innerSrc[11], f.innerDst[10], f.innerDst[11] = 0xff, 0xff, 0xff, 0xff
		if f.innerLen == 0 {
			f.offloadArtefact = true // BIG TCP: the length does not fit 16 bits
		} else if checksum(data[off:off+ihl], 0) != 0 {
			f.badIPChecksum = true
		}
		if be16(data, off+6)&0x1fff != 0 {
			return // a later inner fragment
		}
		l4 = off + ihl
	case 0x86DD:
		if !inRange(data, off, 40) || data[off]>>4 != 6 {
			return
		}
		f.innerIP, f.innerV6 = true, true
		f.innerLen = int(be16(data, off+4))
		if f.innerLen == 0 {
			f.offloadArtefact = true // BIG TCP over IPv6: payload length 0, no jumbo option
		} else {
			f.innerLen += 40
		}
		f.innerProto = data[off+6]
		copy(f.innerSrc[:], data[off+8:off+24])
		copy(f.innerDst[:], data[off+24:off+40])
		l4 = off + 40
	default:
		return
	}
	ipStart := l4 - 20
	if f.innerV6 {
		ipStart = l4 - 40
	}
	switch f.innerProto {
	case 6:
		if !inRange(data, l4, 20) {
			return
		}
		f.innerSport, f.innerDport = be16(data, l4), be16(data, l4+2)
		f.innerSeq = be32(data, l4+4)
		f.innerFlags = data[l4+13]
		doff := int(data[l4+12]>>4) * 4
		if f.innerLen > 0 {
			f.innerTCPPayload = f.innerLen - (l4 - ipStart) - doff
		}
	case 17:
		if !inRange(data, l4, 8) {
			return
		}
		f.innerSport, f.innerDport = be16(data, l4), be16(data, l4+2)
		f.nested = vxlanPorts.has(f.innerDport)
	case 1, 58:
		if !inRange(data, l4, 2) {
			return
		}
		f.icmpType, f.icmpCode = data[l4], data[l4+1]
	default:
		return
	}
	f.prepareL4(data, ipStart, l4)
}

// prepareL4 decides whether the inner transport checksum can be verified:
// only when the whole inner packet was captured. A super-packet (longer
// than any MTU, captured before segmentation) is an offload artefact.
func (f *frame) prepareL4(data []byte, ipStart, l4 int) {
	if f.truncated || f.innerLen == 0 || !inRange(data, ipStart, f.innerLen) || f.innerProto == 58 && !f.innerV6 {
		return
	}
	if f.innerProto == 6 && f.innerLen > 9000 || f.innerProto == 6 && f.innerTCPPayload > 1460 && f.innerLen > 1500 {
		f.offloadArtefact = true
		return
	}
	f.ipStart, f.l4Off = ipStart, l4
}

// verifyL4 checks the inner transport checksum prepared by prepareL4. A
// checksum that holds only the pseudo-header (transmit offload not done
// yet, on the sending side) is an artefact, not corruption.
func (f *frame) verifyL4(data []byte) {
	if f.l4Off == 0 {
		return
	}
	seg := data[f.l4Off : f.ipStart+f.innerLen]
	switch f.innerProto {
	case 1:
		if checksum(seg, 0) != 0 {
			f.badL4Checksum = true
		}
		return
	case 17:
		if len(seg) >= 8 && be16(seg, 6) == 0 && !f.innerV6 {
			return // UDP over IPv4 without a checksum
		}
	}
	sum := pseudoHeader(data, f.ipStart, f.innerV6, f.innerProto, len(seg))
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
	if len(seg) >= field+2 && be16(seg, field) == fold(sum) {
		f.offloadArtefact = true
		return
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
		for i := 12; i < 20; i += 2 {
			sum += uint32(be16(data, ipStart+i))
		}
	}
	return sum + uint32(proto) + uint32(length)
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
	var s uint64
	for len(b) >= 32 {
		s += uint64(binary.LittleEndian.Uint32(b)) + uint64(binary.LittleEndian.Uint32(b[4:])) +
			uint64(binary.LittleEndian.Uint32(b[8:])) + uint64(binary.LittleEndian.Uint32(b[12:])) +
			uint64(binary.LittleEndian.Uint32(b[16:])) + uint64(binary.LittleEndian.Uint32(b[20:])) +
			uint64(binary.LittleEndian.Uint32(b[24:])) + uint64(binary.LittleEndian.Uint32(b[28:]))
		b = b[32:]
	}
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
