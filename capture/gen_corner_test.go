package capture

import (
	"encoding/binary"
	"net"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/wincni/diag/gen"
)

// Generators of corner-case frames for corner_test.go, built with
// gopacket's layers and SerializeLayers (raw bytes where gopacket has no
// serializer: Geneve, IPv6 routing and fragment headers).

var (
	macA = net.HardwareAddr{0x08, 0x00, 0x27, 0x9e, 0x41, 0xa2}
	macB = net.HardwareAddr{0x00, 0x15, 0x5d, 0xb9, 0x70, 0x84}
)

func ser(ls ...gopacket.SerializableLayer) []byte {
	b := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(b, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		panic(err)
	}
	return append([]byte(nil), b.Bytes()...)
}

func ip(s string) net.IP {
	a := net.ParseIP(s)
	if a4 := a.To4(); a4 != nil {
		return a4
	}
	return a
}

// l3 is an IP header for a transport layer: IPv4 or IPv6 by the address.
func l3(src, dst string, proto layers.IPProtocol, id uint16) gopacket.NetworkLayer {
	if ip(src).To4() != nil {
		return &layers.IPv4{Version: 4, TTL: 64, Id: id, Flags: layers.IPv4DontFragment, Protocol: proto, SrcIP: ip(src), DstIP: ip(dst)}
	}
	return &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: proto, SrcIP: ip(src), DstIP: ip(dst)}
}

func etherType(n gopacket.NetworkLayer) layers.EthernetType {
	if _, ok := n.(*layers.IPv4); ok {
		return layers.EthernetTypeIPv4
	}
	return layers.EthernetTypeIPv6
}

// tcpSeg is an inner TCP segment's transport layer.
type tcpSeg struct {
	sport, dport uint16
	flags        string // S A F R
	seq          uint32
	id           uint16
	payload      int
}

func (s tcpSeg) layer() *layers.TCP {
	t := gen.TCPLayer(s.sport, s.dport, s.seq, s.flags)
	if t.SYN {
		t.Options = []layers.TCPOption{{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{5, 0xb4}},
			{OptionType: layers.TCPOptionKindSACKPermitted, OptionLength: 2}, {OptionType: layers.TCPOptionKindNop},
			{OptionType: layers.TCPOptionKindWindowScale, OptionLength: 3, OptionData: []byte{7}}}
	}
	return t
}

// innerTCP is an Ethernet frame with an IP packet and a TCP segment.
func innerTCP(src, dst string, s tcpSeg) []byte {
	n := l3(src, dst, layers.IPProtocolTCP, s.id)
	t := s.layer()
	t.SetNetworkLayerForChecksum(n)
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: etherType(n)}, n.(gopacket.SerializableLayer), t,
		gopacket.Payload(fill(s.payload)))
}

// innerUDP is an Ethernet frame with an IP packet and a UDP datagram.
func innerUDP(src, dst string, sport, dport uint16, id uint16, payload []byte) []byte {
	n := l3(src, dst, layers.IPProtocolUDP, id)
	u := &layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: layers.UDPPort(dport)}
	u.SetNetworkLayerForChecksum(n)
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: etherType(n)}, n.(gopacket.SerializableLayer), u, gopacket.Payload(payload))
}

func fill(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	return b
}

func vxlanHdr(flags byte, vni uint32, next byte) []byte {
	h := make([]byte, 8)
	h[0], h[3] = flags, next
	binary.BigEndian.PutUint32(h[4:], vni<<8)
	return h
}

// encap wraps a frame in VXLAN (flags 0x08) over UDP to dport.
func encap(src, dst string, dport uint16, vni uint32, frame []byte) []byte {
	return udpFrame(src, dst, 49152, dport, append(vxlanHdr(0x08, vni, 0), frame...))
}

// udpFrame is an outer Ethernet/IP/UDP frame; over IPv4 the UDP checksum
// is 0, as VTEPs send it.
func udpFrame(src, dst string, sport, dport uint16, payload []byte, tags ...layers.EthernetType) []byte {
	n := l3(src, dst, layers.IPProtocolUDP, 0x4242)
	u := &layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: layers.UDPPort(dport)}
	u.SetNetworkLayerForChecksum(n)
	var ls []gopacket.SerializableLayer
	et := etherType(n)
	if len(tags) == 0 {
		ls = append(ls, &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: et})
	} else {
		ls = append(ls, &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: tags[0]})
		for i := range tags {
			next := et
			if i+1 < len(tags) {
				next = tags[i+1]
			}
			ls = append(ls, &layers.Dot1Q{VLANIdentifier: uint16(100 + i), Type: next})
		}
	}
	ls = append(ls, n.(gopacket.SerializableLayer), u, gopacket.Payload(payload))
	b := ser(ls...)
	if _, v4 := n.(*layers.IPv4); v4 {
		// The UDP checksum field, counted from the front: a short frame
		// is padded to Ethernet's minimum.
		off := 14 + 4*len(tags) + 20 + 6
		b[off], b[off+1] = 0, 0
	}
	return b
}

// geneve is a Geneve header (with one 8-byte option) carrying Ethernet.
func geneve(vni uint32, frame []byte) []byte {
	h := []byte{0x02, 0, 0x65, 0x58, 0, 0, 0, 0, 0x01, 0x02, 0x80, 0x01, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(h[4:], vni<<8)
	return append(h, frame...)
}

// onesSum is RFC 1071's checksum over b with an initial sum.
func onesSum(b []byte, sum uint32) uint16 { return gen.OnesComplement(b, sum) }

// refixTCPv4 recomputes the TCP checksum of an IPv4 packet at ipOff
// (header length from the packet) over its total length.
func refixTCPv4(b []byte, ipOff int) {
	ihl := int(b[ipOff]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(b[ipOff+2:]))
	seg := b[ipOff+ihl : ipOff+total]
	seg[16], seg[17] = 0, 0
	var sum uint32
	for i := 12; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[ipOff+i:]))
	}
	sum += 6 + uint32(len(seg))
	binary.BigEndian.PutUint16(seg[16:], onesSum(seg, sum))
}

// pkt is one frame for the analyzer.
type pkt struct {
	data     []byte
	wire     int // 0: len(data)
	at       time.Duration
	iface    int
	packetID uint64
	lt       layers.LinkType
}

var t0 = time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)

func run(opts Options, pkts ...pkt) *Report {
	a := NewAnalyzer(opts)
	for _, p := range pkts {
		wire := p.wire
		if wire == 0 {
			wire = len(p.data)
		}
		lt := p.lt
		if lt == 0 {
			lt = layers.LinkTypeEthernet
		}
		a.Add(&Packet{Data: p.data, Length: wire, Time: t0.Add(p.at), LinkType: LinkType(lt), Interface: p.iface, PacketID: p.packetID})
	}
	return a.Finish("test")
}

// ipv6Fragment is a frame holding part of a UDP datagram behind an IPv6
// fragment header (ID 0x1234) at byte offset off; more: fragments follow.
func ipv6Fragment(src, dst string, off int, more bool, part []byte) []byte {
	n := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolIPv6Fragment, SrcIP: ip(src), DstIP: ip(dst)}
	fo := uint16(off/8) << 3
	if more {
		fo |= 1
	}
	h := []byte{17, 0, byte(fo >> 8), byte(fo), 0, 0, 0x12, 0x34}
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv6}, n, gopacket.Payload(append(h, part...)))
}

// ipv4Fragment is a frame holding part of a UDP datagram in an IPv4
// fragment with IP ID id at byte offset off; more: fragments follow.
func ipv4Fragment(src, dst string, id uint16, off int, more bool, part []byte) []byte {
	n := &layers.IPv4{Version: 4, TTL: 64, Id: id, Protocol: layers.IPProtocolUDP, SrcIP: ip(src), DstIP: ip(dst), FragOffset: uint16(off / 8)}
	if more {
		n.Flags = layers.IPv4MoreFragments
	}
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, n, gopacket.Payload(part))
}
