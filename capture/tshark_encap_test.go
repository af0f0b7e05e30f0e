package capture

import (
	"time"

	"github.com/gopacket/gopacket/layers"
)

// The corpus files of the encapsulations around the tunnels (see
// tshark_corpus_test.go): what TestGeneveCarriers, TestTunnelNeedsWholeHeader,
// TestLLCSNAP, TestGRENotDecoded and TestUnderlayTooBig hold, in files
// tshark reads too.

func spaced(frames ...[]byte) []pkt {
	out := make([]pkt, len(frames))
	for i, f := range frames {
		out[i] = pkt{data: f, at: time.Duration(i) * time.Millisecond}
	}
	return out
}

// geneveCarriers: Geneve carrying IPv4, IPv6 and Ethernet, with VXLAN
// inside, under a VLAN tag and over outer IPv6; Geneve carrying a plain
// packet; Geneve (IPv4) inside VXLAN, its innermost segment good and bad.
func geneveCarriers() []pkt {
	in := innerTCP(podA, podB, tcpSeg{sport: 40100, dport: 80, flags: "S", seq: 1, id: 100})
	bad := innerTCP(podA, podB, tcpSeg{sport: 40101, dport: 80, flags: "A", seq: 1, id: 101, payload: 30})
	bad[len(bad)-1] ^= 0xff
	dns := innerUDP(s6, "fd00:10:96::a", 5301, 53, 0, fill(30))
	return spaced(
		udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x0800, ipOf(encap(vtepC, vtepD, 4789, 300, in)))),
		udpFrame(vtepA, vtepB, 49153, 6081, geneveProto(7, 0x86DD, ipOf(encap(o6a, o6b, 4789, 301, dns)))),
		udpFrame(o6a, o6b, 49154, 6081, geneveProto(8, 0x6558, encap(vtepC, vtepD, 4789, 302, in))),
		udpFrame(vtepA, vtepB, 49155, 6081, geneveProto(9, 0x0800, ipOf(encap(vtepC, vtepD, 4789, 303, in))), layers.EthernetTypeDot1Q),
		udpFrame(vtepA, vtepB, 49156, 6081, geneveProto(10, 0x0800, ipOf(in))),
		encap(vtepA, vtepB, 4789, 100, udpFrame(vtepC, vtepD, 49157, 6081, geneveProto(11, 0x0800, ipOf(in)))),
		encap(vtepA, vtepB, 4789, 100, udpFrame(vtepC, vtepD, 49158, 6081, geneveProto(11, 0x0800, ipOf(bad)))),
	)
}

// tunnelHeaders: datagrams to tunnel ports with no or too short a
// payload (no tunnel packets), a header alone (one), a Geneve header of
// version 1 carrying VXLAN (dropped by receivers, RFC 8926), and a VXLAN
// packet.
func tunnelHeaders() []pkt {
	syn := innerTCP(podA, podB, tcpSeg{sport: 40110, dport: 80, flags: "S", seq: 1, id: 110})
	v1 := geneveProto(7, 0x6558, encap(vtepC, vtepD, 4789, 310, syn))
	v1[0] |= 0x40
	return spaced(
		udpFrame(vtepA, vtepB, 49152, 6081, v1),
		udpFrame(vtepA, vtepB, 49152, 6081, nil),
		udpFrame(vtepA, vtepB, 49152, 6081, []byte{0x02, 0, 0x65}),
		udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x6558, nil)[:12]),
		udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x6558, nil)),
		udpFrame(vtepA, vtepB, 49152, 4789, nil),
		udpFrame(vtepA, vtepB, 49152, 8472, nil),
		udpFrame(vtepA, vtepB, 49152, 4790, nil),
		udpFrame(vtepA, vtepB, 49152, 4789, vxlanHdr(0x08, 5, 0)),
		encap(vtepA, vtepB, 4789, 9, udpFrame(vtepC, vtepD, 49152, 6081, nil)),
		encap(vtepA, vtepB, 4789, 1, syn),
	)
}

// snaplenHeaders: tunnel headers cut by the snap length: Geneve's
// options, a VXLAN header, and a VXLAN header inside a whole Geneve one.
func snaplenHeaders() []pkt {
	in := innerTCP(podA, podB, tcpSeg{sport: 40120, dport: 80, flags: "S", seq: 1, id: 120})
	g := udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x0800, ipOf(encap(vtepC, vtepD, 4789, 320, in))))
	v := encap(vtepA, vtepB, 4789, 321, in)
	return []pkt{
		{data: g[:14+20+8+12], wire: len(g)},
		{data: v[:14+20+8+4], wire: len(v), at: time.Millisecond},
		{data: g[:14+20+8+16+20+8+4], wire: len(g), at: 2 * time.Millisecond},
		{data: v, at: 3 * time.Millisecond},
	}
}

// llcSNAP: inner 802.3 LLC/SNAP frames carrying IPv4 (TCP, UDP, ICMP and
// a corrupt segment), an outer one, spanning tree and a SNAP OUI that
// carries no IP.
func llcSNAP() []pkt {
	syn := innerTCP(podA, podB, tcpSeg{sport: 40200, dport: 80, flags: "S", seq: 1, id: 200})
	bad := innerTCP(podA, podB, tcpSeg{sport: 40201, dport: 80, flags: "A", seq: 1, id: 203, payload: 20})
	bad[len(bad)-1] ^= 0xff
	stp := append(append([]byte(nil), macB...), macA...)
	stp = append(stp, 0, 38, 0x42, 0x42, 0x03)
	stp = append(stp, make([]byte, 35)...)
	other := snapFrame(syn)
	other[14+5] = 0x0c
	return spaced(
		encap(vtepA, vtepB, 4789, 1, snapFrame(syn)),
		encap(vtepA, vtepB, 4789, 1, snapFrame(innerUDP(podA, "10.96.0.10", 5300, 53, 201, fill(30)))),
		encap(vtepA, vtepB, 4789, 1, snapFrame(innerICMP(podA, podB, 202))),
		encap(vtepA, vtepB, 4789, 1, snapFrame(bad)),
		snapFrame(encap(vtepA, vtepB, 4789, 2, innerTCP(podA, podB, tcpSeg{sport: 40202, dport: 80, flags: "S", seq: 1, id: 204}))),
		encap(vtepA, vtepB, 4789, 1, stp),
		encap(vtepA, vtepB, 4789, 1, other),
	)
}

// sllLLC: a Linux cooked capture of an 802.2 LLC/SNAP frame carrying VXLAN.
func sllLLC() []pkt {
	syn := innerTCP(podA, podB, tcpSeg{sport: 40210, dport: 80, flags: "S", seq: 1, id: 210})
	sll := append([]byte{0, 0, 0, 1, 0, 6}, macA...)
	sll = append(sll, 0, 0, 0, 4)
	return spaced(append(sll, snapFrame(encap(vtepA, vtepB, 4789, 1, syn))[14:]...))
}

// greMirrors: VXLAN packets mirrored in ERSPAN type II and in GRE
// bridging, beside the packet itself.
func greMirrors() []pkt {
	mirrored := encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: 40300, dport: 80, flags: "S", seq: 1, id: 300}))
	other := encap(vtepB, vtepA, 4789, 1, innerTCP(podB, podA, tcpSeg{sport: 80, dport: 40300, flags: "SA", seq: 9, id: 301}))
	// GRE inside VXLAN: a pod's own GRE tunnel, the inner packet.
	podGRE := erspanII(podA, podB, 3, innerTCP("10.250.0.1", "10.250.0.2", tcpSeg{sport: 40301, dport: 80, flags: "S", seq: 1, id: 302}))
	return spaced(
		encap(vtepA, vtepB, 4789, 1, podGRE),
		erspanII("10.1.1.1", "10.1.1.2", 1, mirrored),
		erspanII("10.1.1.1", "10.1.1.2", 2, other),
		greBridged(o6a, o6b, mirrored),
		mirrored,
	)
}

// underlayTooBig: a VXLAN conversation, a router's "fragmentation needed"
// about a large VXLAN packet, an ICMPv6 "packet too big" about Geneve,
// and one about plain TCP.
func underlayTooBig() []pkt {
	var out [][]byte
	for _, p := range healthy() {
		out = append(out, p.Bytes())
	}
	big := bigVXLAN(linuxVTEP, winVTEP, 4096)
	geneve6 := udpFrame(o6a, o6b, 49152, 6081, geneveProto(4096, 0x6558, innerTCP(podA, podB, tcpSeg{sport: 40401, dport: 443, flags: "A", seq: 1, id: 401, payload: 1400})))
	plain := innerTCP(linuxVTEP, winVTEP, tcpSeg{sport: 40402, dport: 443, flags: "A", seq: 1, id: 402, payload: 1460})
	out = append(out, big, tooBig("10.20.30.1", 1400, big), geneve6, tooBig("2001:db8::fe", 1420, geneve6), tooBig("10.20.30.1", 1400, plain))
	return spaced(out...)
}

// tripleVXLAN: a DNS query in three layers of VXLAN, and its answer.
func tripleVXLAN() []pkt {
	q := innerUDP(podA, "10.96.0.10", 5310, 53, 310, fill(30))
	a := innerUDP("10.96.0.10", podA, 53, 5310, 311, fill(60))
	wrap := func(src, dst string, in []byte) []byte {
		return encap(src, dst, 4789, 100, encap("172.17.0.1", "172.17.0.2", 4789, 200, encap(vtepC, vtepD, 4789, 300, in)))
	}
	return spaced(wrap(vtepA, vtepB, q), wrap(vtepB, vtepA, a))
}

// portOrderVXLAN: a DNS query in three layers of VXLAN whose inner layers
// go from UDP port 53 to 4789 (a packet crafter's default source port):
// tshark decodes them by the lower port, as DNS; diag by the destination
// port, as VXLAN. And one whose outer layer does so too.
func portOrderVXLAN() []pkt {
	q := innerUDP(podA, "10.96.0.10", 5320, 53, 320, fill(30))
	from53 := func(src, dst string, vni uint32, in []byte) []byte {
		return udpFrame(src, dst, 53, 4789, append(vxlanHdr(0x08, vni, 0), in...))
	}
	return spaced(
		encap(vtepA, vtepB, 4789, 100, from53("172.17.0.1", "172.17.0.2", 200, from53(vtepC, vtepD, 300, q))),
		from53(vtepA, vtepB, 400, q),
	)
}
