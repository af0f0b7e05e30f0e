package gen

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Pkt describes one frame to synthesise: VXLAN-encapsulated unless Plain.
type Pkt struct {
	At                 time.Duration // since the capture start
	OuterSrc, OuterDst string
	SrcPort            uint16 // outer UDP source port; 0 picks one from the inner flow
	DstPort            uint16 // outer UDP destination port; 0 means 4789
	VNI                uint32
	NoIFlag            bool // CAP-08
	ShortVXLAN         bool // UDP payload shorter than a VXLAN header
	FirstFragment      bool // outer IPv4 MF set
	InnerDstMAC        string
	InnerSrc, InnerDst string
	Proto              string // tcp, udp, icmp
	Sport, Dport       uint16
	TCPFlags           string // any of "SAFR" (SYN ACK FIN RST)
	Seq                uint32
	IPID               uint16
	ICMPType, ICMPCode uint8
	Payload            int
	BadChecksum        bool // flip the inner TCP checksum
	Plain              bool // no encapsulation: the inner packet on the wire (CAP-01)
	PacketID           uint64
}

var (
	outerSrcMAC = net.HardwareAddr{0x08, 0x00, 0x27, 0x9e, 0x41, 0xa2}
	outerDstMAC = net.HardwareAddr{0x08, 0x00, 0x27, 0xd1, 0x7a, 0x03}
	podSrcMAC   = net.HardwareAddr{0x0e, 0x2a, 0x64, 0xf4, 0x31, 0x45}
)

func ip4(s string) net.IP { return net.ParseIP(s).To4() }

// Bytes serialises the frame.
func (p Pkt) Bytes() []byte {
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	dstMAC, _ := net.ParseMAC(p.InnerDstMAC)
	if dstMAC == nil {
		dstMAC = net.HardwareAddr{0x00, 0x15, 0x5d, 0xb9, 0x70, 0x84}
	}
	ieth := &layers.Ethernet{SrcMAC: podSrcMAC, DstMAC: dstMAC, EthernetType: layers.EthernetTypeIPv4}
	iip := &layers.IPv4{Version: 4, TTL: 63, Id: p.IPID, Flags: layers.IPv4DontFragment, SrcIP: ip4(p.InnerSrc), DstIP: ip4(p.InnerDst)}
	inner := []gopacket.SerializableLayer{ieth, iip}
	switch p.Proto {
	case "udp":
		iip.Protocol = layers.IPProtocolUDP
		u := &layers.UDP{SrcPort: layers.UDPPort(p.Sport), DstPort: layers.UDPPort(p.Dport)}
		u.SetNetworkLayerForChecksum(iip)
		inner = append(inner, u)
	case "icmp":
		iip.Protocol = layers.IPProtocolICMPv4
		inner = append(inner, &layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(p.ICMPType, p.ICMPCode)})
	default:
		iip.Protocol = layers.IPProtocolTCP
		t := TCPLayer(p.Sport, p.Dport, p.Seq, p.TCPFlags)
		t.SetNetworkLayerForChecksum(iip)
		inner = append(inner, t)
	}
	inner = append(inner, gopacket.Payload(make([]byte, p.Payload)))
	ib := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(ib, opts, inner...); err != nil {
		panic(err)
	}
	frame := ib.Bytes()
	if p.BadChecksum && p.Proto != "udp" && p.Proto != "icmp" {
		frame[14+20+16] ^= 0x5a
	}
	if p.Plain {
		out := make([]byte, len(frame))
		copy(out, frame)
		copy(out[0:6], outerDstMAC)
		copy(out[6:12], outerSrcMAC)
		return out
	}
	sport := p.SrcPort
	if sport == 0 {
		sport = 49152 + p.Sport%16000
	}
	dport := p.DstPort
	if dport == 0 {
		dport = 4789
	}
	oeth := &layers.Ethernet{SrcMAC: outerSrcMAC, DstMAC: outerDstMAC, EthernetType: layers.EthernetTypeIPv4}
	oip := &layers.IPv4{Version: 4, TTL: 64, Id: p.IPID ^ 0x5555, Protocol: layers.IPProtocolUDP, SrcIP: ip4(p.OuterSrc), DstIP: ip4(p.OuterDst)}
	if p.FirstFragment {
		oip.Flags = layers.IPv4MoreFragments
	}
	oudp := &layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: layers.UDPPort(dport)}
	oudp.SetNetworkLayerForChecksum(oip)
	var vx []byte
	if p.ShortVXLAN {
		vx = []byte{0x08, 0, 0, 0}
	} else {
		vx = make([]byte, 8, 8+len(frame))
		if !p.NoIFlag {
			vx[0] = 0x08
		}
		binary.BigEndian.PutUint32(vx[4:], p.VNI<<8)
		vx = append(vx, frame...)
	}
	ob := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(ob, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, oeth, oip, oudp, gopacket.Payload(vx)); err != nil {
		panic(err)
	}
	out := ob.Bytes()
	binary.BigEndian.PutUint16(out[14+20+6:], 0) // VXLAN over IPv4 sends UDP checksum 0
	return append([]byte(nil), out...)
}

// start is the time of the first packet of generated captures.
var start = time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)

// WritePcap writes packets as a little-endian microsecond pcap (Ethernet).
func WritePcap(path string, pkts []Pkt) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return err
	}
	for _, p := range pkts {
		b := p.Bytes()
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: start.Add(p.At), CaptureLength: len(b), Length: len(b)}, b); err != nil {
			return err
		}
	}
	return f.Close()
}

// WritePcapng writes packets as pcapng; packets with a PacketID carry it in
// the epb_packetid option, as etl2pcapng writes pktmon's PktGroupId.
func WritePcapng(path string, pkts []Pkt, snaplen int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := pcapgo.NewNgWriter(f, layers.LinkTypeEthernet)
	if err != nil {
		return err
	}
	for _, p := range pkts {
		b := p.Bytes()
		ci := gopacket.CaptureInfo{Timestamp: start.Add(p.At), CaptureLength: len(b), Length: len(b)}
		if snaplen > 0 && len(b) > snaplen {
			b, ci.CaptureLength = b[:snaplen], snaplen
		}
		var opts pcapgo.NgPacketOptions
		if p.PacketID != 0 {
			id := p.PacketID
			opts.PacketID = &id
		}
		if err := w.WritePacketWithOptions(ci, b, opts); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// Handshake is a TCP connection between pods through a tunnel: SYN,
// SYN/ACK, ACK, a request and a response.
func Handshake(at time.Duration, outerA, outerB, podA, podB string, sport, dport uint16, vni uint32, macA, macB string) []Pkt {
	fwd := Pkt{OuterSrc: outerA, OuterDst: outerB, VNI: vni, InnerDstMAC: macB, InnerSrc: podA, InnerDst: podB, Sport: sport, Dport: dport}
	rev := Pkt{OuterSrc: outerB, OuterDst: outerA, VNI: vni, InnerDstMAC: macA, InnerSrc: podB, InnerDst: podA, Sport: dport, Dport: sport}
	var out []Pkt
	for i, step := range []struct {
		p     Pkt
		flags string
		size  int
	}{{fwd, "S", 0}, {rev, "SA", 0}, {fwd, "A", 0}, {fwd, "A", 120}, {rev, "A", 900}, {fwd, "FA", 0}, {rev, "FA", 0}} {
		p := step.p
		p.At, p.TCPFlags, p.Payload, p.Seq, p.IPID = at+time.Duration(i)*time.Millisecond, step.flags, step.size, uint32(1000+i), uint16(sport)+uint16(i)
		out = append(out, p)
	}
	return out
}

// WriteBenchCapture writes n VXLAN packets in flows concurrent flows to a
// pcap quickly (templates patched in place, not serialised each time): the
// input of bench/capture.sh. Each flow opens with a handshake and then
// carries full-size and small segments.
func WriteBenchCapture(w io.Writer, n, flows int) error {
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return err
	}
	templates := map[string][]byte{}
	for _, kind := range []struct {
		name, flags string
		size        int
	}{{"syn", "S", 0}, {"synack", "SA", 0}, {"ack", "A", 0}, {"full", "A", 1410}, {"small", "A", 200}} {
		templates[kind.name] = Pkt{OuterSrc: "10.240.0.4", OuterDst: "10.240.0.5", VNI: 4096, InnerSrc: "10.244.1.2", InnerDst: "10.244.2.2",
			Sport: 40000, Dport: 443, TCPFlags: kind.flags, Payload: kind.size}.Bytes()
	}
	const perFlow = 65
	buf := make([]byte, 0, 1600)
	for i := 0; i < n; i++ {
		flow := i % flows
		round := i / flows
		step := round % perFlow
		gen := round / perFlow
		kind := "small"
		switch {
		case step == 0:
			kind = "syn"
		case step == 1:
			kind = "synack"
		case step == 2 || step%4 == 1:
			kind = "ack"
		case step%2 == 0:
			kind = "full"
		}
		buf = append(buf[:0], templates[kind]...)
		// Vary the flow: outer addresses (8 nodes), pods, ports.
		node := byte(flow % 8)
		buf[14+12+3] = 4 + node
		buf[14+16+3] = 4 + (node+1)%8
		binary.BigEndian.PutUint16(buf[14+20:], uint16(49152+flow))
		in := 14 + 20 + 8 + 8 + 14
		buf[in+12+2], buf[in+12+3] = byte(flow>>8), byte(flow)
		buf[in+16+2], buf[in+16+3] = byte(gen), byte(flow)
		binary.BigEndian.PutUint16(buf[in+20:], uint16(32768+flow))
		binary.BigEndian.PutUint32(buf[in+24:], uint32(i))
		if kind == "synack" {
			// the answer travels the other way
			copy(buf[14+12:14+16], []byte{10, 240, 0, 4 + (node+1)%8})
			copy(buf[14+16:14+20], []byte{10, 240, 0, 4 + node})
			for k := 0; k < 4; k++ {
				buf[in+12+k], buf[in+16+k] = buf[in+16+k], buf[in+12+k]
			}
			sp, dp := binary.BigEndian.Uint16(buf[in+20:]), binary.BigEndian.Uint16(buf[in+22:])
			binary.BigEndian.PutUint16(buf[in+20:], dp)
			binary.BigEndian.PutUint16(buf[in+22:], sp)
		}
		fixInnerChecksums(buf[in:])
		ci := gopacket.CaptureInfo{Timestamp: start.Add(time.Duration(i) * time.Microsecond), CaptureLength: len(buf), Length: len(buf)}
		if err := pw.WritePacket(ci, buf); err != nil {
			return fmt.Errorf("packet %d: %w", i, err)
		}
	}
	return nil
}

// fixInnerChecksums recomputes the IPv4 header and TCP checksums of an
// inner IPv4/TCP packet after its fields were patched.
func fixInnerChecksums(ip []byte) {
	ihl := int(ip[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(ip[2:]))
	ip[10], ip[11] = 0, 0
	binary.BigEndian.PutUint16(ip[10:], OnesComplement(ip[:ihl], 0))
	seg := ip[ihl:total]
	seg[16], seg[17] = 0, 0
	var pseudo uint32
	for i := 12; i < 20; i += 2 {
		pseudo += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	pseudo += 6 + uint32(len(seg))
	binary.BigEndian.PutUint16(seg[16:], OnesComplement(seg, pseudo))
}

// OnesComplement is the Internet checksum of b (RFC 1071 as written:
// 16-bit big-endian words, carries folded), sum the partial sum of what
// precedes it (a pseudo-header).
func OnesComplement(b []byte, sum uint32) uint16 {
	for len(b) >= 2 {
		sum += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// TCPLayer is a TCP header with flags spelled S, A, F, R (ACK acknowledges 1).
func TCPLayer(sport, dport uint16, seq uint32, flags string) *layers.TCP {
	t := &layers.TCP{SrcPort: layers.TCPPort(sport), DstPort: layers.TCPPort(dport), Seq: seq, Window: 64240}
	for _, c := range flags {
		switch c {
		case 'S':
			t.SYN = true
		case 'A':
			t.ACK, t.Ack = true, 1
		case 'F':
			t.FIN = true
		case 'R':
			t.RST = true
		}
	}
	return t
}
