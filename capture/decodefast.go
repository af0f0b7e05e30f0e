package capture

import (
	"encoding/binary"

	"github.com/wincni/diag/capture/wire"
)

// decodeFast decodes the frame nearly every packet of an overlay capture
// is, in one pass without the general path's calls and copies: Ethernet
// II without VLAN tags, IPv4 without options, not fragmented, UDP to a
// VXLAN port, VXLAN with the I flag, an inner Ethernet II frame with IPv4
// without options, not fragmented, of a non-zero length, carrying TCP, or
// UDP that is no tunnel. It leaves f exactly as decode's general path
// does (TestDecodeFastMatchesGeneral, FuzzDecodeFast hold this) and
// returns false, having maybe written part of f, for any other frame:
// decode then starts over on the general path.
func decodeFast(f *frame, data []byte, ports *wire.Ports) bool {
	// Outer Ethernet, IPv4 (IHL 5), UDP, VXLAN, inner Ethernet, IPv4
	// (IHL 5) and the first 8 bytes of the transport header.
	const (
		oIP   = 14
		oUDP  = oIP + 20
		oVX   = oUDP + 8
		iEth  = oVX + wire.VXLANHeaderLen
		iIP   = iEth + 14
		iL4   = iIP + 20
		least = iL4 + 8
	)
	if len(data) < least || data[12] != 0x08 || data[13] != 0x00 || data[oIP] != 0x45 || data[oIP+9] != wire.IPProtoUDP ||
		data[oIP+6]&0x3f|data[oIP+7] != 0 {
		return false
	}
	total := int(be16(data, oIP+2))
	dport := be16(data, oUDP+2)
	if total < 20 || !ports.Has(dport) || data[oVX]&wire.VXLANFlagI == 0 ||
		data[iEth+12] != 0x08 || data[iEth+13] != 0x00 || data[iIP] != 0x45 || data[iIP+6]&0x3f|data[iIP+7] != 0 {
		return false
	}
	innerLen := int(be16(data, iIP+2))
	proto := data[iIP+9]
	if innerLen < 20 || proto != 6 && proto != 17 {
		return false
	}
	// Ethernet padding: read no further than the outer IP and UDP
	// lengths say.
	if end := oIP + total; end >= oUDP && end < len(data) {
		data = data[:end]
	}
	if len(data) < least {
		return false
	}
	if ul := int(be16(data, oUDP+4)); ul >= 8 && oUDP+ul < len(data) {
		data = data[:oUDP+ul]
	}
	if len(data) < least {
		return false
	}

	f.kind = kindVXLAN
	f.proto, f.ipLen, f.firstFrag = 17, total, true
	f.src[10], f.src[11], f.dst[10], f.dst[11] = 0xff, 0xff, 0xff, 0xff
	copy(f.src[12:], data[oIP+12:oIP+16])
	copy(f.dst[12:], data[oIP+16:oIP+20])
	f.sport, f.dport = be16(data, oUDP), dport
	f.vni = be32(data, oVX+4) >> 8
	if data[oVX] != wire.VXLANFlagI || data[oVX+1]|data[oVX+2]|data[oVX+3]|data[oVX+7] != 0 {
		f.oddFlags = true
	}
	f.inner = true
	copy(f.innerDstMAC[:], data[iEth:iEth+6])

	in := &f.innerPkt
	in.innerIP, in.innerProto, in.innerLen = true, proto, innerLen
	in.innerSrc[10], in.innerSrc[11], in.innerDst[10], in.innerDst[11] = 0xff, 0xff, 0xff, 0xff
	copy(in.innerSrc[12:], data[iIP+12:iIP+16])
	copy(in.innerDst[12:], data[iIP+16:iIP+20])
	in.innerID = be16(data, iIP+4)
	if !ipv4HeaderSumOK(data[iIP : iIP+20]) {
		f.badIPChecksum = true
	}
	if !inRange(data, iIP, innerLen) && !f.truncated {
		f.innerBeyond = true
	}
	if end := iIP + innerLen; end < len(data) {
		data = data[:end]
	}
	// The inner length may end the packet inside its transport header.
	if len(data) >= iL4+4 {
		in.innerSport, in.innerDport = be16(data, iL4), be16(data, iL4+2)
	}
	if len(data) >= iL4+8 {
		if proto == wire.IPProtoTCP {
			in.innerSeq = be32(data, iL4+4)
			if len(data) >= iL4+14 {
				in.innerFlags = data[iL4+13]
				in.innerTCPPayload = max(0, innerLen-20-int(data[iL4+12]>>4)*4)
			}
		} else {
			if wire.TunnelOf(in.innerSport, in.innerDport, ports) != wire.TunnelNone {
				return false // a tunnel inside: the general path follows it
			}
			// The checksum covers the UDP length (prepareL4): the
			// fingerprint ends with the datagram, the check sees the
			// whole IP packet.
			ipData := data
			if ul := int(be16(data, iL4+4)); ul >= 8 && iL4+ul < len(data) {
				data = data[:iL4+ul]
			}
			in.fpStart, in.fpEnd = iIP, min(len(data), iL4+20)
			f.prepareL4(ipData, iIP, iL4)
			return true
		}
	}
	in.fpStart, in.fpEnd = iIP, min(len(data), iL4+20)
	f.prepareL4(data, iIP, iL4)
	return true
}

// ipv4HeaderSumOK checks the checksum of a 20-byte IPv4 header: its
// one's-complement sum is 0xffff (RFC 1071), as checksum(h, 0) == 0 says
// for any length. Five 32-bit words, folded: the end-around carries make
// it the 16-bit sum.
func ipv4HeaderSumOK(h []byte) bool {
	h = h[:20]
	s := uint64(binary.BigEndian.Uint32(h)) + uint64(binary.BigEndian.Uint32(h[4:])) + uint64(binary.BigEndian.Uint32(h[8:])) +
		uint64(binary.BigEndian.Uint32(h[12:])) + uint64(binary.BigEndian.Uint32(h[16:]))
	s = s>>32 + s&0xffffffff
	s = s>>16 + s&0xffff
	s = s>>16 + s&0xffff
	return s>>16+s&0xffff == 0xffff
}
