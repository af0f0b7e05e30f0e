package capture

import (
	"encoding/binary"
	"time"
)

// Corpus files (see tshark_corpus_test.go) of what tshark and diag decode
// differently by design, or of lengths they must judge alike: what
// TestInnerUDPShorterThanIPPayload and TestInnerUDPLongerThanIPPayload
// hold, and the differences docs/capture-vs-tshark.md lists.

// udpLengths: inner UDP datagrams shorter than their IP payload (RFC 768),
// good and corrupt, untagged (the fast path) and VLAN-tagged, and one
// whose UDP length goes beyond the IP payload.
func udpLengths() []pkt {
	good := withIPTrailer(innerUDP(podA, podB, 5400, 53, 400, fill(20)), 8)
	bad := append([]byte(nil), good...)
	bad[14+20+8+3] ^= 0xff
	long := innerUDP(podA, podB, 5401, 53, 401, fill(4))
	u := long[14+20:]
	binary.BigEndian.PutUint16(u[4:], 40)
	u[6], u[7] = 0, 0
	binary.BigEndian.PutUint16(u[6:], onesSum(u, pseudoHeader(long, 14, false, 17, 40)))
	tagged := func(in []byte) []byte {
		return udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x08, 400, 0), in...), 0x8100)
	}
	return spaced(encap(vtepA, vtepB, 4789, 400, good), encap(vtepA, vtepB, 4789, 400, bad),
		tagged(good), tagged(bad), encap(vtepA, vtepB, 4789, 400, long))
}

// shortVXLAN: datagrams to 4789 with 3 and 7 bytes of payload (tshark
// reads the VNI of the second), and a whole VXLAN packet.
func shortVXLAN() []pkt {
	hdr := vxlanHdr(0x08, 410, 0)
	syn := innerTCP(podA, podB, tcpSeg{sport: 40410, dport: 80, flags: "S", seq: 1, id: 410})
	return spaced(udpFrame(vtepA, vtepB, 49152, 4789, hdr[:3]), udpFrame(vtepA, vtepB, 49152, 4789, hdr[:7]),
		encap(vtepA, vtepB, 4789, 411, syn))
}

// outerFragmentsBad: VXLAN packets in outer IPv6 and IPv4 fragments whose
// inner TCP segment is corrupt: tshark verifies it over the reassembled
// packet, diag gives the first fragment no verdict.
func outerFragmentsBad() []pkt {
	seg := func(id uint16) []byte {
		in := innerTCP(podA, podB, tcpSeg{sport: 40420 + id, dport: 80, flags: "A", seq: 1, id: 420 + id, payload: 1400})
		in[len(in)-1] ^= 0xff
		return in
	}
	udp6 := encap(o6a, o6b, 4789, 420, seg(0))[14+40:]
	udp4 := encap(vtepA, vtepB, 4789, 421, seg(1))[14+20:]
	return []pkt{
		{data: ipv6Fragment(o6a, o6b, 0, true, udp6[:1232])},
		{data: ipv6Fragment(o6a, o6b, 1232, false, udp6[1232:]), at: time.Microsecond},
		{data: ipv4Fragment(vtepA, vtepB, 0x4420, 0, true, udp4[:1200]), at: 2 * time.Microsecond},
		{data: ipv4Fragment(vtepA, vtepB, 0x4420, 1200, false, udp4[1200:]), at: 3 * time.Microsecond},
	}
}

// otherEncaps: MPLS inside VXLAN (tshark follows the label stack, diag
// does not), VXLAN inside IP in IP (diag does not decode it), Geneve to
// 6081 from source port 4789 (tshark decodes VXLAN by the lower port,
// diag Geneve by the destination), and a plain VXLAN packet.
func otherEncaps() []pkt {
	syn := innerTCP(podA, podB, tcpSeg{sport: 40430, dport: 80, flags: "S", seq: 1, id: 430})
	mpls := append(append(append([]byte(nil), syn[:12]...), 0x88, 0x47, 0, 0x64, 0x01, 64), syn[14:]...)
	ipip := ipv4Fragment("172.16.9.1", "172.16.9.2", 0x4430, 0, false, ipOf(encap(vtepC, vtepD, 4789, 432, syn)))
	ipip[14+9] = 4
	fixIPv4Header(ipip, 14)
	return spaced(
		encap(vtepA, vtepB, 4789, 430, mpls),
		ipip,
		udpFrame(vtepA, vtepB, 4789, 6081, geneveProto(433, 0x6558, syn)),
		encap(vtepA, vtepB, 4789, 431, syn),
	)
}
