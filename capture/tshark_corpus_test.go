package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// The corner-case corpus that `make compare-tshark` decodes with tshark and
// with diag (tools/compare-tshark): each file holds one kind of corner, as
// gen_corner_test.go builds them. go test ./capture -run
// '^TestTsharkCorpus$' -corner-captures DIR writes it to DIR; without the
// flag the test writes it to a temporary directory and reads every file
// back through the whole path.
var cornerCaptures = flag.String("corner-captures", "", "write the corner-case capture corpus (for tools/compare-tshark) to this directory")

type corpusFile struct {
	name string
	lt   layers.LinkType
	pkts []pkt // iface is used by pcapng files only
}

const (
	s6, d6 = "fd00:10:244:1::5", "fd00:10:244:2::7"
	o6a    = "2001:db8::1"
	o6b    = "2001:db8::2"
)

func corpus() []corpusFile {
	syn := innerTCP(podA, podB, tcpSeg{sport: 40000, dport: 80, flags: "S", seq: 1, id: 1})
	synAck := innerTCP(podB, podA, tcpSeg{sport: 80, dport: 40000, flags: "SA", seq: 9, id: 2})
	ack := innerTCP(podA, podB, tcpSeg{sport: 40000, dport: 80, flags: "A", seq: 2, id: 3, payload: 100})
	dns := innerUDP(podA, "10.96.0.10", 5353, 53, 4, fill(30))
	ping := innerICMP(podA, podB, 5)
	arp := innerARP()
	basic := []pkt{
		{data: encap(vtepA, vtepB, 4789, 4096, syn)},
		{data: encap(vtepB, vtepA, 4789, 4096, synAck)},
		{data: encap(vtepA, vtepB, 4789, 4096, ack)},
		{data: encap(vtepA, vtepB, 4789, 4096, dns)},
		{data: encap(vtepA, "192.168.10.3", 4789, 4097, ping)},
		{data: encap(vtepA, vtepB, 4789, 4096, arp)},
		// A reply from the VXLAN port to an ephemeral one.
		{data: udpFrame(vtepB, vtepA, 4789, 50000, append(vxlanHdr(0x08, 4096, 0), synAck...))},
	}

	hbh := innerTCPv6ExtHeaders(41001)
	zero6 := innerUDP(s6, d6, 5000, 53, 0, fill(30))
	binary.BigEndian.PutUint16(zero6[14+40+6:], 0)
	ipv6 := []pkt{
		{data: encap(o6a, o6b, 4789, 1, innerTCP(s6, d6, tcpSeg{sport: 41000, dport: 443, flags: "S", seq: 5}))},
		{data: encap(o6a, o6b, 4789, 1, hbh)},
		{data: encap(vtepA, vtepB, 4789, 1, zero6)}, // inner IPv6 UDP checksum 0: illegal (RFC 8200)
		{data: encap(vtepA, vtepB, 4789, 1, innerUDP(s6, d6, 5001, 53, 0, fill(30)))},
	}

	badTCP := innerTCP(podA, podB, tcpSeg{sport: 40001, dport: 80, flags: "A", seq: 1, id: 6, payload: 40})
	badTCP[len(badTCP)-1] ^= 0xff
	badIP := innerUDP(podA, podB, 5002, 53, 7, fill(20))
	badIP[14+10] ^= 0x01
	badUDP := innerUDP(podA, podB, 5003, 53, 8, fill(20))
	badUDP[len(badUDP)-1] ^= 0x10
	badICMP := innerICMP(podA, podB, 9)
	badICMP[len(badICMP)-1] ^= 0x01
	zero4 := innerUDP(podA, podB, 5004, 53, 10, fill(20))
	binary.BigEndian.PutUint16(zero4[14+20+6:], 0) // no checksum: legal over IPv4
	jumbo := innerTCP(podA, podB, tcpSeg{sport: 40002, dport: 80, flags: "A", seq: 1, id: 11, payload: 9000 - 40 - 12})
	jumbo[len(jumbo)-1] ^= 0xff
	checksums := []pkt{
		{data: encap(vtepA, vtepB, 4789, 1, badTCP)},
		{data: encap(vtepA, vtepB, 4789, 1, badIP)},
		{data: encap(vtepA, vtepB, 4789, 1, badUDP)},
		{data: encap(vtepA, vtepB, 4789, 1, badICMP)},
		{data: encap(vtepA, vtepB, 4789, 1, zero4)},
		{data: encap(vtepA, vtepB, 4789, 1, jumbo)},
		{data: encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: 40003, dport: 80, flags: "A", seq: 1, id: 12, payload: 1000}))},
	}

	// Segmentation offload, captured on the sending side: a TSO super-packet
	// whose checksum holds the pseudo-header only, and a small packet with
	// a partial checksum (checksum offload).
	super := partialTCP(innerTCP(podA, podB, tcpSeg{sport: 40004, dport: 80, flags: "A", seq: 1, id: 13, payload: 64000 - 40 - 12}), true)
	small := partialTCP(innerTCP(podA, podB, tcpSeg{sport: 40005, dport: 80, flags: "A", seq: 1, id: 14, payload: 200}), false)
	offload := []pkt{
		{data: encap(vtepA, vtepB, 4789, 1, super)},
		{data: encap(vtepA, vtepB, 4789, 1, small)},
	}

	in := innerTCP(podA, podB, tcpSeg{sport: 40006, dport: 80, flags: "S", seq: 1, id: 15})
	flags := []pkt{
		{data: udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x0C, 4096, 0x03), in...))}, // GPE-style bits on 4789
		{data: udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x88, 4096, 0), in...))},    // group policy (G bit)
		{data: udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x00, 4096, 0), in...))},    // no I flag
	}

	tunnels := []pkt{
		{data: encap(vtepA, vtepB, 4789, 100, encap("172.16.0.1", "172.16.0.2", 4789, 200, in))},
		{data: udpFrame(vtepA, vtepB, 49152, 6081, geneve(7, encap("172.16.0.1", "172.16.0.2", 4789, 300, in)))},
		{data: udpFrame(vtepA, vtepB, 49152, 6081, geneve(7, in))},
		{data: udpFrame(vtepA, vtepB, 49152, 4790, append(vxlanHdr(0x0C, 4096, 0x03), in...))},
		{data: udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x08, 5, 0), in...), layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q, layers.EthernetTypeDot1Q)},
	}

	// Ethernet padding: a 60-byte minimum inner frame after a short UDP
	// datagram, and an outer frame padded the same way.
	tiny := innerUDP(podA, podB, 5005, 53, 16, fill(2))
	tinyPadded := append(append([]byte(nil), tiny...), bytes.Repeat([]byte{0xee}, 60-len(tiny))...)
	padding := []pkt{
		{data: encap(vtepA, vtepB, 4789, 1, tinyPadded)},
		{data: append(encap(vtepA, vtepB, 4789, 1, tiny), 0, 0, 0, 0)},
	}

	frags := fragmentsPkts()

	var snap []pkt
	for i := range 3 {
		f := encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: uint16(40010 + i), dport: 443, flags: "S", seq: 77, id: uint16(20 + i), payload: 200}))
		snap = append(snap, pkt{data: f[:128], wire: len(f), at: time.Duration(i) * time.Millisecond})
	}

	short := append([]byte(nil), in...)
	binary.BigEndian.PutUint16(short[14+2:], 19) // total length below the header length
	beyond := innerTCP(podA, podB, tcpSeg{sport: 40012, dport: 80, flags: "A", seq: 1, id: 23, payload: 100})
	binary.BigEndian.PutUint16(beyond[14+2:], 1400) // longer than the frame, within the MTU
	fixIPv4Header(beyond, 14)
	malformed := []pkt{
		{data: encap(vtepA, vtepB, 4789, 1, short)},
		{data: encap(vtepA, vtepB, 4789, 1, beyond)},
		{data: udpFrame(vtepA, vtepB, 49152, 4789, []byte{0x08, 0, 0})}, // a VXLAN header cut short
	}

	// Source routing: the transport checksum's pseudo-header holds the
	// final destination (RFC 8200 §8.1; RFC 791/1122 for IPv4), not the
	// next hop in the IP header.
	routing := []pkt{
		{data: encap(vtepA, vtepB, 4789, 1, innerTCPv6Routing(2, 1))},
		{data: encap(vtepA, vtepB, 4789, 1, innerTCPv6Routing(4, 1))},
		{data: encap(vtepA, vtepB, 4789, 1, innerTCPv6Routing(0, 1))},
		{data: encap(vtepA, vtepB, 4789, 1, innerTCPv6Routing(2, 0))},
		{data: encap(vtepA, vtepB, 4789, 1, innerTCPv6Routing(4, 0))},
		{data: encap(vtepA, vtepB, 4789, 1, innerTCPv4SourceRoute(131, false))},
		{data: encap(vtepA, vtepB, 4789, 1, innerTCPv4SourceRoute(137, false))},
		{data: encap(vtepA, vtepB, 4789, 1, innerTCPv4SourceRoute(131, true))},
	}

	// ICMPv6 echo (its checksum covers a pseudo-header), good and bad;
	// an inner 802.1Q tag; outer IPv4 options.
	echo6 := innerICMPv6(s6, d6)
	badEcho6 := innerICMPv6(s6, d6)
	badEcho6[len(badEcho6)-1] ^= 0x40
	misc := []pkt{
		{data: encap(vtepA, vtepB, 4789, 1, echo6)},
		{data: encap(vtepA, vtepB, 4789, 1, badEcho6)},
		{data: encap(vtepA, vtepB, 4789, 1, innerTagged(innerTCP(podA, podB, tcpSeg{sport: 40030, dport: 80, flags: "S", seq: 1, id: 40})))},
		{data: outerIPv4Options(encap(vtepA, vtepB, 4789, 1, syn))},
	}

	icmpErr := []pkt{{data: encap(vtepA, vtepB, 4789, 1, innerICMPError(podB, podA, innerUDP(podA, podB, 5006, 53, 24, fill(1400))))}}

	sll := encap(vtepA, vtepB, 4789, 1, syn)[14:] // an IP packet
	raw := []pkt{{data: sll}}
	sllHdr := append([]byte{0, 0, 0, 1, 0, 6}, macA...)
	sllHdr = append(sllHdr, 0, 0, 0x08, 0x00)
	sll1 := []pkt{{data: append(sllHdr, sll...)}}
	sll2Hdr := []byte{0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6}
	sll2Hdr = append(append(sll2Hdr, macA...), 0, 0)
	sll2 := []pkt{{data: append(sll2Hdr, sll...)}}

	// The same frames on two pcapng interfaces (a copy on each), as a
	// capture on a bridge and its uplink has them.
	var twoIfaces []pkt
	for i, in := range [][]byte{syn, synAck, ack} {
		src, dst := vtepA, vtepB
		if i == 1 {
			src, dst = vtepB, vtepA
		}
		f := encap(src, dst, 4789, 1, in)
		at := time.Duration(i) * time.Millisecond
		twoIfaces = append(twoIfaces, pkt{data: f, at: at}, pkt{data: f, at: at + 20*time.Microsecond, iface: 1})
	}

	return []corpusFile{
		{name: "basic.pcap", pkts: basic},
		{name: "geneve-carriers.pcap", pkts: geneveCarriers()},
		{name: "tunnel-headers.pcap", pkts: tunnelHeaders()},
		{name: "snaplen-headers.pcap", pkts: snaplenHeaders()},
		{name: "llc-snap.pcap", pkts: llcSNAP()},
		{name: "linux-sll-llc.pcap", lt: layers.LinkTypeLinuxSLL, pkts: sllLLC()},
		{name: "gre-erspan.pcap", pkts: greMirrors()},
		{name: "too-big.pcap", pkts: underlayTooBig()},
		{name: "triple-vxlan.pcap", pkts: tripleVXLAN()},
		{name: "vxlan-port-order.pcap", pkts: portOrderVXLAN()},
		{name: "udp-length.pcap", pkts: udpLengths()},
		{name: "short-vxlan.pcap", pkts: shortVXLAN()},
		{name: "outer-fragments-bad.pcap", pkts: outerFragmentsBad()},
		{name: "other-encapsulations.pcap", pkts: otherEncaps()},
		{name: "ipv6.pcap", pkts: ipv6},
		{name: "checksums.pcap", pkts: checksums},
		{name: "offload.pcap", pkts: offload},
		{name: "vxlan-flags.pcap", pkts: flags},
		{name: "stacked-tunnels.pcap", pkts: tunnels},
		{name: "padding.pcap", pkts: padding},
		{name: "fragments.pcap", pkts: frags},
		{name: "snaplen-128.pcap", pkts: snap},
		{name: "malformed.pcap", pkts: malformed},
		{name: "icmp-error.pcap", pkts: icmpErr},
		{name: "source-routing.pcap", pkts: routing},
		{name: "misc.pcap", pkts: misc},
		{name: "raw-ip.pcap", lt: layers.LinkTypeRaw, pkts: raw},
		{name: "linux-sll.pcap", lt: layers.LinkTypeLinuxSLL, pkts: sll1},
		{name: "linux-sll2.pcap", lt: 276, pkts: sll2},
		{name: "two-interfaces.pcapng", pkts: twoIfaces},
		{name: "two-interfaces.pcapng.gz", pkts: twoIfaces},
		{name: "basic.pcap.gz", pkts: basic},
		{name: "damaged.pcapng", pkts: basic},
	}
}

// innerICMP is an Ethernet frame with an ICMP echo request (or, over
// IPv6 addresses, ICMPv6).
func innerICMP(src, dst string, id uint16) []byte {
	n := l3(src, dst, layers.IPProtocolICMPv4, id)
	ic := &layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(layers.ICMPv4TypeEchoRequest, 0), Id: id, Seq: 1}
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, n.(gopacket.SerializableLayer), ic, gopacket.Payload(fill(56)))
}

// innerICMPError is an ICMP "fragmentation needed" quoting the start of
// the inner frame's IP packet.
func innerICMPError(src, dst string, frame []byte) []byte {
	n := l3(src, dst, layers.IPProtocolICMPv4, 99)
	ic := &layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(layers.ICMPv4TypeDestinationUnreachable, layers.ICMPv4CodeFragmentationNeeded), Seq: 1400}
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, n.(gopacket.SerializableLayer), ic, gopacket.Payload(frame[14:14+28]))
}

// innerICMPv6 is an Ethernet frame with an ICMPv6 echo request.
func innerICMPv6(src, dst string) []byte {
	n := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolICMPv6, SrcIP: ip(src), DstIP: ip(dst)}
	ic := &layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(layers.ICMPv6TypeEchoRequest, 0)}
	ic.SetNetworkLayerForChecksum(n)
	echo := &layers.ICMPv6Echo{Identifier: 7, SeqNumber: 1}
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv6}, n, ic, echo, gopacket.Payload(fill(32)))
}

// innerTagged puts an 802.1Q tag into an Ethernet frame.
func innerTagged(frame []byte) []byte {
	out := append([]byte(nil), frame[:12]...)
	out = append(out, 0x81, 0x00, 0x00, 0x2a)
	return append(out, frame[12:]...)
}

// outerIPv4Options gives the outer IPv4 header of a frame 4 bytes of
// options (router alert).
func outerIPv4Options(frame []byte) []byte {
	out := append([]byte(nil), frame[:14+20]...)
	out = append(out, 0x94, 0x04, 0, 0)
	out = append(out, frame[14+20:]...)
	out[14] = 0x46
	binary.BigEndian.PutUint16(out[14+2:], binary.BigEndian.Uint16(out[14+2:])+4)
	fixIPv4Header(out, 14)
	return out
}

// Addresses of a source-routed inner packet: it is on its way to hop,
// its final destination is final.
const (
	hop6, final6 = "fd00:10:244:3::1", "fd00:10:244:2::7"
	hop4, final4 = "10.244.3.1", "10.244.2.7"
)

// innerTCPv6Routing is an IPv6 TCP SYN with a routing header of the type
// (0, 2: Mobile IPv6, 4: segment routing). With a segment left the
// header's destination is the next hop and the final one is in the
// routing header; with none, the header's destination is the final one
// (the routing header then holds the hop passed). The TCP checksum is
// over the final destination.
func innerTCPv6Routing(typ, left byte) []byte {
	tcp := tcpSeg{sport: 41010 + uint16(typ)*2 + uint16(left), dport: 443, flags: "S", seq: 5}.layer()
	tcp.SetNetworkLayerForChecksum(&layers.IPv6{Version: 6, NextHeader: layers.IPProtocolTCP, SrcIP: ip(s6), DstIP: ip(final6)})
	seg := ser(tcp, gopacket.Payload(fill(20)))
	inRH, dst := final6, hop6
	if left == 0 {
		inRH, dst = hop6, final6
	}
	var rh []byte
	switch typ {
	case 0, 2: // next header, length 2, type, segments left, reserved; the address
		rh = append([]byte{6, 2, typ, left, 0, 0, 0, 0}, ip(inRH)...)
	case 4: // SRH: last entry 1, segment list [final, hop]
		rh = append([]byte{6, 4, 4, left, 1, 0, 0, 0}, ip(final6)...)
		rh = append(rh, ip(hop6)...)
	}
	n := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolIPv6Routing, SrcIP: ip(s6), DstIP: ip(dst)}
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv6}, n, gopacket.Payload(append(rh, seg...)))
}

// innerTCPv4SourceRoute is an IPv4 TCP SYN with a loose (131) or strict
// (137) source route option: on its way to hop, final destination final;
// or, the route exhausted (pointer past the option), at final, the option
// holding the hop passed.
func innerTCPv4SourceRoute(opt byte, exhausted bool) []byte {
	tcp := tcpSeg{sport: 41020 + uint16(opt), dport: 443, flags: "S", seq: 5}.layer()
	tcp.SetNetworkLayerForChecksum(&layers.IPv4{Version: 4, Protocol: layers.IPProtocolTCP, SrcIP: ip(podA), DstIP: ip(final4)})
	seg := ser(tcp, gopacket.Payload(fill(20)))
	route, dst := append([]byte{4}, ip(final4)...), hop4
	if exhausted {
		route, dst = append([]byte{8}, ip(hop4)...), final4
	}
	n := &layers.IPv4{Version: 4, TTL: 64, Id: 77, Protocol: layers.IPProtocolTCP, SrcIP: ip(podA), DstIP: ip(dst),
		Options: []layers.IPv4Option{{OptionType: opt, OptionLength: 7, OptionData: route}, {OptionType: 1}}}
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, n, gopacket.Payload(seg))
}

func innerARP() []byte {
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: layers.EthernetBroadcast, EthernetType: layers.EthernetTypeARP},
		&layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
			Operation: layers.ARPRequest, SourceHwAddress: macA, SourceProtAddress: ip(podA), DstHwAddress: make([]byte, 6), DstProtAddress: ip(podB)})
}

// innerTCPv6ExtHeaders is an inner IPv6 TCP SYN from sport behind a
// hop-by-hop and a destination options header.
func innerTCPv6ExtHeaders(sport uint16) []byte {
	n := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolIPv6HopByHop, SrcIP: ip(s6), DstIP: ip(d6)}
	hbh := &layers.IPv6HopByHop{}
	hbh.NextHeader = layers.IPProtocolIPv6Destination
	hbh.Options = []*layers.IPv6HopByHopOption{{OptionType: 1, OptionLength: 4, OptionData: []byte{0, 0, 0, 0}}}
	dst := &layers.IPv6Destination{}
	dst.NextHeader = layers.IPProtocolTCP
	dst.Options = []*layers.IPv6DestinationOption{{OptionType: 1, OptionLength: 4, OptionData: []byte{0, 0, 0, 0}}}
	tcp := tcpSeg{sport: sport, dport: 443, flags: "S", seq: 5}.layer()
	tcp.SetNetworkLayerForChecksum(n)
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv6}, n, hbh, dst, tcp, gopacket.Payload(fill(20)))
}

// partialTCP replaces the TCP checksum of an inner IPv4 frame with the
// pseudo-header sum a sender leaves for the NIC to complete (with or
// without the length, as Windows LSO leaves it).
func partialTCP(frame []byte, withLength bool) []byte {
	ipOff := 14
	total := int(binary.BigEndian.Uint16(frame[ipOff+2:]))
	ihl := int(frame[ipOff]&0x0f) * 4
	var sum uint32
	for i := 12; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(frame[ipOff+i:]))
	}
	sum += 6
	if withLength {
		sum += uint32(total - ihl)
	}
	binary.BigEndian.PutUint16(frame[ipOff+ihl+16:], fold(sum))
	return frame
}

func fixIPv4Header(frame []byte, ipOff int) {
	ihl := int(frame[ipOff]&0x0f) * 4
	frame[ipOff+10], frame[ipOff+11] = 0, 0
	binary.BigEndian.PutUint16(frame[ipOff+10:], onesSum(frame[ipOff:ipOff+ihl], 0))
}

// fragmentsPkts: an outer IPv6 VXLAN packet in two fragments, an outer
// IPv4 one in two, and an inner IPv4 UDP datagram in two fragments.
func fragmentsPkts() []pkt {
	in := innerTCP(podA, podB, tcpSeg{sport: 40020, dport: 80, flags: "A", seq: 1, id: 30, payload: 1400})
	whole6 := encap(o6a, o6b, 4789, 1, in)
	udp6 := whole6[14+40:]
	whole4 := encap(vtepA, vtepB, 4789, 2, innerTCP(podA, podB, tcpSeg{sport: 40021, dport: 80, flags: "A", seq: 1, id: 31, payload: 1400}))
	udp4 := whole4[14+20:]
	// An inner UDP datagram of 2000 bytes in two IPv4 fragments.
	dgram := innerUDP(podA, podB, 5007, 53, 32, fill(2000))[14+20:]
	return []pkt{
		{data: ipv6Fragment(o6a, o6b, 0, true, udp6[:1232])},
		{data: ipv6Fragment(o6a, o6b, 1232, false, udp6[1232:]), at: time.Microsecond},
		{data: ipv4Fragment(vtepA, vtepB, 0x4343, 0, true, udp4[:1200]), at: 2 * time.Microsecond},
		{data: ipv4Fragment(vtepA, vtepB, 0x4343, 1200, false, udp4[1200:]), at: 3 * time.Microsecond},
		{data: encap(vtepA, vtepB, 4789, 3, ipv4Fragment(podA, podB, 0x5353, 0, true, dgram[:1400])), at: 4 * time.Microsecond},
		{data: encap(vtepA, vtepB, 4789, 3, ipv4Fragment(podA, podB, 0x5353, 1400, false, dgram[1400:])), at: 5 * time.Microsecond},
	}
}

// writeCorpusFile writes one corpus file: pcap, or pcapng by the name,
// gzip'd when the name ends in .gz; damaged.pcapng has a block whose
// length is not a multiple of 4 after its third packet.
func writeCorpusFile(path string, cf corpusFile) error {
	var buf bytes.Buffer
	name := cf.name
	lt := cf.lt
	if lt == 0 {
		lt = layers.LinkTypeEthernet
	}
	ext := filepath.Ext(name)
	if ext == ".gz" {
		ext = filepath.Ext(name[:len(name)-3])
	}
	switch {
	case name == "damaged.pcapng":
		buf.Write(ngSHBytes())
		buf.Write(ngIDBytes(uint16(lt)))
		for i, p := range cf.pkts {
			if i == 3 {
				bad := ngEPBytes(0, p.data)
				binary.LittleEndian.PutUint32(bad[4:], uint32(len(bad)-2))
				buf.Write(bad)
				continue
			}
			buf.Write(ngEPBytes(0, p.data))
		}
	case ext == ".pcapng":
		w, err := pcapgo.NewNgWriterInterface(&buf, pcapgo.NgInterface{Name: "eth0", LinkType: lt, SnapLength: 65535, TimestampResolution: 9},
			pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "diag corpus"}})
		if err != nil {
			return err
		}
		if _, err := w.AddInterface(pcapgo.NgInterface{Name: "eth1", LinkType: lt, SnapLength: 65535, TimestampResolution: 9}); err != nil {
			return err
		}
		for _, p := range cf.pkts {
			if err := w.WritePacket(captureInfo(p), p.data); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
	default:
		w := pcapgo.NewWriterNanos(&buf)
		if err := w.WriteFileHeader(65535, lt); err != nil {
			return err
		}
		for _, p := range cf.pkts {
			if err := w.WritePacket(captureInfo(p), p.data); err != nil {
				return err
			}
		}
	}
	data := buf.Bytes()
	if filepath.Ext(name) == ".gz" {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			return err
		}
		data = z.Bytes()
	}
	return os.WriteFile(path, data, 0o644)
}

func captureInfo(p pkt) gopacket.CaptureInfo {
	wire := p.wire
	if wire == 0 {
		wire = len(p.data)
	}
	return gopacket.CaptureInfo{Timestamp: t0.Add(p.at), CaptureLength: len(p.data), Length: wire, InterfaceIndex: p.iface}
}

// TestTsharkCorpus writes the corpus and reads every file back: each one
// opens and decodes to VXLAN packets (damaged.pcapng up to its damage).
func TestTsharkCorpus(t *testing.T) {
	dir := *cornerCaptures
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cf := range corpus() {
		path := filepath.Join(dir, cf.name)
		if err := writeCorpusFile(path, cf); err != nil {
			t.Fatalf("%s: %v", cf.name, err)
		}
		a := NewAnalyzer(Options{})
		if err := a.ReadFile(path); err != nil {
			t.Errorf("%s: %v", cf.name, err)
			continue
		}
		if r := a.Finish("corpus"); r.VXLANPackets == 0 {
			t.Errorf("%s: no VXLAN packets decoded", cf.name)
		}
	}
}
