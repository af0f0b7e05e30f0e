package capture

import (
	"encoding/binary"
	"math/bits"

	"github.com/wincni/diag/capture/wire"
)

// prepareL4 decides whether the inner transport checksum can be verified:
// only when the whole inner packet was captured and is no fragment (the
// checksum covers the whole datagram). Size alone never excuses a
// checksum: a jumbo frame's is verified like any other; super-packets of
// segmentation offload show themselves by a partial checksum (verifyL4),
// a zero length, or a length beyond the frame (the analyzer judges it).
func (f *frame) prepareL4(data []byte, ipStart, l4 int) {
	if f.innerFrag || f.innerLen == 0 || f.innerProto == wire.IPProtoICMPv6 && !f.innerV6 || f.innerProto == wire.IPProtoICMP && f.innerV6 {
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
	case wire.IPProtoTCP:
		minHdr = 20
	case wire.IPProtoICMP, wire.IPProtoICMPv6:
		minHdr = 4
	}
	n := ipStart + f.innerLen - l4
	if n < minHdr {
		f.malformed = malformedInnerL4
		return
	}
	if f.innerProto == wire.IPProtoUDP {
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
	case wire.IPProtoICMP:
		if checksum(seg, 0) != 0 {
			f.badL4Checksum = true
		}
		return
	case wire.IPProtoUDP:
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
	case wire.IPProtoUDP:
		field = 6
	case wire.IPProtoICMPv6:
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
// 64-bit words, 64 bytes a round, and swaps the bytes of the result.
func checksum(b []byte, initial uint32) uint16 {
	// One's-complement sum in 64-bit words: each carry goes into the next
	// addition (bits.Add64 chained compiles to add-with-carry), the last
	// one is added back at the end (RFC 1071: the sum is independent of
	// byte order and word size as long as the end-around carries are
	// kept).
	var s, c uint64
	for len(b) >= 64 {
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b), c)
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[8:]), c)
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[16:]), c)
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[24:]), c)
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[32:]), c)
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[40:]), c)
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[48:]), c)
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b[56:]), c)
		b = b[64:]
	}
	for len(b) >= 8 {
		s, c = bits.Add64(s, binary.LittleEndian.Uint64(b), c)
		b = b[8:]
	}
	s, c = bits.Add64(s, 0, c)
	s += c
	// Fold to 32 bits; the tail adds at most 2^32 more.
	s = s>>32 + s&0xffffffff
	if len(b) >= 4 {
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
