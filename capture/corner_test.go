package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Corner cases from the public zeek/suricata traces and crafted files on
// which the decoder once disagreed with tshark. Frames are built with
// gopacket's serializers (gen_corner_test.go); where a figure is about
// what is inside a frame, gopacket's own decoders say what it should be.

const (
	vtepA, vtepB = "192.168.10.1", "192.168.10.2"
	podA, podB   = "10.244.1.5", "10.244.2.7"
)

func hasID(r *Report, id string) bool { return slices.Contains(ids(r), id) }

// oracleTCP decodes the innermost TCP segment of a frame with gopacket,
// following VXLAN on 4789 the way gopacket's layers do.
func oracleTCP(t *testing.T, frame []byte) *layers.TCP {
	t.Helper()
	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	var last *layers.TCP
	for _, l := range p.Layers() {
		if tcp, ok := l.(*layers.TCP); ok {
			last = tcp
		}
	}
	if last == nil {
		t.Fatalf("gopacket finds no TCP layer in the frame: %v", p)
	}
	return last
}

// An inner IPv4 total length below its header length was a crash (slice
// bounds in the checksum check): now one malformed packet, CAP-08.
func TestInnerIPv4LengthBelowHeader(t *testing.T) {
	inner := innerTCP(podA, podB, tcpSeg{sport: 40000, dport: 80, flags: "S", seq: 1, id: 7})
	for _, total := range []uint16{0x0010, 19, 1} {
		in := append([]byte(nil), inner...)
		binary.BigEndian.PutUint16(in[14+2:], total)
		r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, in)})
		if r.VXLANPackets != 1 || r.Malformed != 1 || !hasID(r, "CAP-08") || hasID(r, "CAP-06") {
			t.Errorf("total length %d: %d VXLAN, %d malformed, findings %v", total, r.VXLANPackets, r.Malformed, ids(r))
		}
	}
}

// Inner IPv4 with options: the transport header is after the options.
// A correct checksum is no CAP-06; a wrong one is.
func TestInnerIPv4Options(t *testing.T) {
	n := &layers.IPv4{Version: 4, TTL: 64, Id: 9, Protocol: layers.IPProtocolTCP, SrcIP: ip(podA), DstIP: ip(podB),
		Options: []layers.IPv4Option{{OptionType: 0x94, OptionLength: 4, OptionData: []byte{0, 0}}, {OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 0}}}
	tcp := tcpSeg{sport: 40001, dport: 8080, flags: "S", seq: 100}.layer()
	tcp.SetNetworkLayerForChecksum(n)
	inner := ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, n, tcp, gopacket.Payload(fill(40)))
	if ihl := inner[14] & 0x0f; ihl <= 5 {
		t.Fatalf("the generator made no options (IHL %d)", ihl)
	}
	want := oracleTCP(t, inner)
	r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, inner)})
	if hasID(r, "CAP-06") || len(r.Flows) != 1 || r.Flows[0].SrcPort != uint16(want.SrcPort) || r.Flows[0].DstPort != uint16(want.DstPort) {
		t.Errorf("findings %v, flows %+v; gopacket says ports %d>%d", ids(r), r.Flows, want.SrcPort, want.DstPort)
	}
	bad := append([]byte(nil), inner...)
	bad[len(bad)-1] ^= 0xff
	if r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, bad)}); !hasID(r, "CAP-06") {
		t.Errorf("a corrupted segment behind IP options: findings %v", ids(r))
	}
}

// A first fragment holds only part of the datagram the checksum covers:
// no verdict, no CAP-06; its ports still make a flow.
func TestInnerFirstFragment(t *testing.T) {
	n := &layers.IPv4{Version: 4, TTL: 64, Id: 0x1234, Flags: layers.IPv4MoreFragments, Protocol: layers.IPProtocolUDP, SrcIP: ip(podA), DstIP: ip(podB)}
	u := &layers.UDP{SrcPort: 5353, DstPort: 53}
	u.SetNetworkLayerForChecksum(n)
	inner := ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, n, u, gopacket.Payload(fill(1200)))
	// The UDP length and checksum are those of the whole datagram (3000
	// bytes), not of this fragment.
	binary.BigEndian.PutUint16(inner[14+20+4:], 3008)
	r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, inner)})
	if hasID(r, "CAP-06") || len(r.Flows) != 1 || r.Flows[0].DstPort != 53 {
		t.Errorf("findings %v, flows %+v", ids(r), r.Flows)
	}
}

// IPv6 extension headers are followed to the transport header.
func TestInnerIPv6ExtensionHeaders(t *testing.T) {
	build := func(corrupt bool) []byte {
		b := innerTCPv6ExtHeaders(41000)
		if corrupt {
			b[len(b)-1] ^= 0x5a
		}
		return b
	}
	good := build(false)
	want := oracleTCP(t, good)
	r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, good)})
	if hasID(r, "CAP-06") || len(r.Flows) != 1 || r.Flows[0].SrcPort != uint16(want.SrcPort) || r.Flows[0].Proto != "tcp" {
		t.Errorf("findings %v, flows %+v", ids(r), r.Flows)
	}
	if r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, build(true))}); !hasID(r, "CAP-06") {
		t.Errorf("a corrupted segment behind extension headers: findings %v", ids(r))
	}
	// An inner IPv6 first fragment (fragment header, M set): ports, no verdict.
	n := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolIPv6Fragment, SrcIP: ip(s6), DstIP: ip(d6)}
	body := []byte{17, 0, 0, 1, 0, 0, 0, 42} // next UDP, offset 0, M
	body = append(body, 0x13, 0x88, 0, 53, 0x0b, 0xc0, 0xde, 0xad)
	body = append(body, fill(600)...)
	frag := ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv6}, n, gopacket.Payload(body))
	r = run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, frag)})
	if hasID(r, "CAP-06") || len(r.Flows) != 1 || r.Flows[0].SrcPort != 5000 || r.Flows[0].DstPort != 53 {
		t.Errorf("inner IPv6 first fragment: findings %v, flows %+v", ids(r), r.Flows)
	}
}

// Only a provable copy is dropped: IP ID 0 and IPv6 say nothing.
func TestDedupOnlyCopies(t *testing.T) {
	var pkts []pkt
	for i := range 4 {
		// Pure ACKs: ID 0 (Linux sets DF and ID 0), same sequence number,
		// different acknowledgement numbers, 100 µs apart.
		in := innerTCP(podA, podB, tcpSeg{sport: 40002, dport: 80, flags: "A", seq: 1000, id: 0})
		binary.BigEndian.PutUint32(in[14+20+8:], uint32(5000+i*1448))
		refixTCPv4(in, 14)
		pkts = append(pkts, pkt{data: encap(vtepA, vtepB, 4789, 1, in), at: time.Duration(i) * 100 * time.Microsecond})
	}
	r := run(Options{}, pkts...)
	if r.Duplicates != 0 || len(r.Flows) != 1 || r.Flows[0].Packets != 4 {
		t.Errorf("four distinct ID-0 ACKs: %d duplicates, flows %+v", r.Duplicates, r.Flows)
	}
	// IPv6 has no ID: two different segments are two packets.
	const s6, d6 = "fd00::1:5", "fd00::2:7"
	a := innerTCP(s6, d6, tcpSeg{sport: 40003, dport: 80, flags: "A", seq: 1, payload: 10})
	b := innerTCP(s6, d6, tcpSeg{sport: 40003, dport: 80, flags: "A", seq: 11, payload: 10})
	if r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, a)}, pkt{data: encap(vtepA, vtepB, 4789, 1, b), at: time.Microsecond}); r.Duplicates != 0 || r.Flows[0].Packets != 2 {
		t.Errorf("two IPv6 segments: %d duplicates, %d packets", r.Duplicates, r.Flows[0].Packets)
	}
	// The same bytes again on the same interface are a retransmission, not a copy.
	frame := encap(vtepA, vtepB, 4789, 1, a)
	if r := run(Options{}, pkt{data: frame}, pkt{data: frame, at: time.Millisecond}); r.Duplicates != 0 {
		t.Errorf("a retransmission on one interface: %d duplicates", r.Duplicates)
	}
	// The same bytes on a second interface within the copy window: a copy.
	// Tunnel and flow counts still agree (every frame counts, as in tshark).
	r = run(Options{}, pkt{data: frame}, pkt{data: frame, iface: 1, at: 20 * time.Microsecond})
	if r.Duplicates != 1 || r.Tunnels[0].Packets != 2 || r.Flows[0].Packets != 2 {
		t.Errorf("a copy on a second interface: %d duplicates, tunnel %d, flow %d packets", r.Duplicates, r.Tunnels[0].Packets, r.Flows[0].Packets)
	}
	// pktmon's packet ids decide when they are there.
	r = run(Options{}, pkt{data: frame, packetID: 7}, pkt{data: frame, packetID: 7, at: time.Microsecond}, pkt{data: frame, packetID: 8, at: 2 * time.Microsecond})
	if r.Duplicates != 1 {
		t.Errorf("pktmon ids 7, 7, 8: %d duplicates", r.Duplicates)
	}
}

// Packets on several pcapng interfaces: the tunnel and flow counts agree.
func TestInterfacesCountsAgree(t *testing.T) {
	var pkts []pkt
	for i := range 6 {
		in := innerTCP(podA, podB, tcpSeg{sport: 40004, dport: 80, flags: "A", seq: uint32(1 + i*100), id: uint16(i + 1), payload: 100})
		pkts = append(pkts, pkt{data: encap(vtepA, vtepB, 4789, 1, in), iface: i % 3, at: time.Duration(i) * time.Millisecond})
	}
	r := run(Options{}, pkts...)
	var flows int64
	for _, fl := range r.Flows {
		flows += fl.Packets
	}
	if r.VXLANPackets != 6 || r.Tunnels[0].Packets != 6 || flows != 6 {
		t.Errorf("%d VXLAN, tunnel %d, flows %d packets", r.VXLANPackets, r.Tunnels[0].Packets, flows)
	}
}

// A 9000-byte jumbo inner packet is checked like any other; a super-packet
// of segmentation offload (longer than the outer MTU allows, a partial
// checksum) is not corruption.
func TestJumboAndSuperPackets(t *testing.T) {
	jumbo := innerTCP(podA, podB, tcpSeg{sport: 40005, dport: 80, flags: "A", seq: 1, id: 3, payload: 9000 - 40 - 12})
	jumbo[len(jumbo)-1] ^= 0xff
	r := run(Options{MTU: 9050}, pkt{data: encap(vtepA, vtepB, 4789, 1, jumbo)})
	if !hasID(r, "CAP-06") || hasID(r, "CAP-05") {
		t.Errorf("a jumbo frame with a bad checksum, MTU 9050: findings %v", ids(r))
	}
	// A TSO super-packet: 64000 bytes, the checksum holds only the
	// pseudo-header (the NIC fills it in).
	super := innerTCP(podA, podB, tcpSeg{sport: 40006, dport: 80, flags: "A", seq: 1, id: 4, payload: 64000 - 40 - 12})
	tcp := super[14+20:]
	var sum uint32
	for i := 12; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(super[14+i:]))
	}
	sum += 6 + uint32(len(tcp))
	binary.BigEndian.PutUint16(tcp[16:], fold(sum))
	r = run(Options{MTU: 1500}, pkt{data: encap(vtepA, vtepB, 4789, 1, super)})
	if hasID(r, "CAP-06") || hasID(r, "CAP-05") || hasID(r, "CAP-08") {
		t.Errorf("a TSO super-packet: findings %v", ids(r))
	}
}

// A 128-byte snap length (pktmon's default) keeps the inner ports and
// flags: the flow and CAP-02 are still found; the checksums are said to
// be unverified.
func TestShortSnaplen(t *testing.T) {
	var pkts []pkt
	for i := range 4 {
		in := innerTCP(podA, podB, tcpSeg{sport: 40007, dport: 443, flags: "S", seq: 77, id: uint16(10 + i), payload: 200})
		frame := encap(vtepA, vtepB, 4789, 1, in)
		pkts = append(pkts, pkt{data: frame[:128], wire: len(frame), at: time.Duration(1<<i) * time.Second})
	}
	r := run(Options{}, pkts...)
	if len(r.Flows) != 1 || r.Flows[0].DstPort != 443 || !hasID(r, "CAP-02") || hasID(r, "CAP-06") || r.Unverified != 4 {
		t.Errorf("flows %+v, findings %v, %d unverified", r.Flows, ids(r), r.Unverified)
	}
	if !hasNote(r, "their inner checksums not verified") {
		t.Errorf("notes %q", r.Notes)
	}
}

// VXLAN with flag bits beyond I on a VXLAN port is VXLAN (RFC 7348: the
// reserved bits are ignored), counted as odd, not VXLAN-GPE.
func TestVXLANReservedBits(t *testing.T) {
	in := innerTCP(podA, podB, tcpSeg{sport: 40008, dport: 80, flags: "S", seq: 1, id: 5})
	frame := udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x0C, 4096, 0x03), in...))
	r := run(Options{}, pkt{data: frame})
	if r.VXLANPackets != 1 || r.GPE != 0 || r.OddFlags != 1 || len(r.Flows) != 1 || r.Tunnels[0].VNI != 4096 {
		t.Errorf("%d VXLAN, %d GPE, %d odd, flows %d", r.VXLANPackets, r.GPE, r.OddFlags, len(r.Flows))
	}
	// UDP 4790 stays VXLAN-GPE.
	if r := run(Options{}, pkt{data: udpFrame(vtepA, vtepB, 49152, 4790, append(vxlanHdr(0x0C, 4096, 0x03), in...))}); r.GPE != 1 || r.VXLANPackets != 0 {
		t.Errorf("UDP 4790: %d GPE, %d VXLAN", r.GPE, r.VXLANPackets)
	}
}

// VXLAN in VXLAN, VXLAN in Geneve, three VLAN tags: decoded to the inner flow.
func TestStackedTunnels(t *testing.T) {
	in := innerTCP(podA, podB, tcpSeg{sport: 40009, dport: 80, flags: "S", seq: 1, id: 6})
	nested := encap(vtepA, vtepB, 4789, 100, encap("172.16.0.1", "172.16.0.2", 4789, 200, in))
	r := run(Options{}, pkt{data: nested})
	if r.VXLANPackets != 1 || r.Nested != 1 || len(r.Tunnels) != 2 || len(r.Flows) != 1 || r.Flows[0].VNI != 200 {
		t.Errorf("VXLAN in VXLAN: %d VXLAN, %d nested, %d tunnels, flows %+v", r.VXLANPackets, r.Nested, len(r.Tunnels), r.Flows)
	}
	gen := udpFrame(vtepA, vtepB, 49152, 6081, geneve(7, encap("172.16.0.1", "172.16.0.2", 4789, 300, in)))
	r = run(Options{}, pkt{data: gen})
	if r.Geneve != 1 || r.VXLANPackets != 1 || len(r.Flows) != 1 || r.Flows[0].VNI != 300 {
		t.Errorf("VXLAN in Geneve: %d Geneve, %d VXLAN, flows %+v", r.Geneve, r.VXLANPackets, r.Flows)
	}
	// Geneve alone is recognised, not VXLAN.
	if r := run(Options{}, pkt{data: udpFrame(vtepA, vtepB, 49152, 6081, geneve(7, in))}); r.Geneve != 1 || r.VXLANPackets != 0 {
		t.Errorf("Geneve: %d Geneve, %d VXLAN", r.Geneve, r.VXLANPackets)
	}
	tagged := udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x08, 1, 0), in...), layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q, layers.EthernetTypeDot1Q)
	if r := run(Options{}, pkt{data: tagged}); r.VXLANPackets != 1 || len(r.Flows) != 1 {
		t.Errorf("three VLAN tags: %d VXLAN, %d flows", r.VXLANPackets, len(r.Flows))
	}
}

// Outer IPv6 fragments: the first is VXLAN (its UDP header is there), the
// later ones are not counted as VXLAN.
func TestOuterIPv6Fragments(t *testing.T) {
	const o1, o2 = "2001:db8::1", "2001:db8::2"
	in := innerTCP(podA, podB, tcpSeg{sport: 40010, dport: 80, flags: "A", seq: 1, id: 8, payload: 1400})
	whole := encap(o1, o2, 4789, 1, in) // Ethernet, IPv6, UDP, VXLAN, frame
	udp := whole[14+40:]
	// Fragment it: the first fragment carries 1232 bytes of the UDP datagram.
	first, second := ipv6Fragment(o1, o2, 0, true, udp[:1232]), ipv6Fragment(o1, o2, 1232, false, udp[1232:])
	r := run(Options{}, pkt{data: first}, pkt{data: second, at: time.Microsecond})
	if r.VXLANPackets != 1 || r.OuterFragments != 1 || r.Malformed != 0 {
		t.Errorf("%d VXLAN, %d outer fragments, %d malformed", r.VXLANPackets, r.OuterFragments, r.Malformed)
	}
}

// UDP checksum 0: illegal on inner IPv6 (RFC 8200), allowed on the outer
// header of a tunnel (RFC 6935).
func TestUDPZeroChecksum(t *testing.T) {
	const s6, d6 = "fd00::1:5", "fd00::2:7"
	in := innerUDP(s6, d6, 5000, 53, 0, fill(30))
	binary.BigEndian.PutUint16(in[14+40+6:], 0)
	if r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, in)}); !hasID(r, "CAP-06") {
		t.Errorf("inner IPv6 UDP checksum 0: findings %v", ids(r))
	}
	in4 := innerUDP(podA, podB, 5000, 53, 1, fill(30))
	binary.BigEndian.PutUint16(in4[14+20+6:], 0)
	ok := innerUDP(s6, d6, 5000, 53, 0, fill(30))
	outer := encap("2001:db8::1", "2001:db8::2", 4789, 1, ok)
	binary.BigEndian.PutUint16(outer[14+40+6:], 0)
	r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, in4)}, pkt{data: outer})
	if hasID(r, "CAP-06") || r.VXLANPackets != 2 {
		t.Errorf("inner IPv4 and outer IPv6 UDP checksum 0: %d VXLAN, findings %v", r.VXLANPackets, ids(r))
	}
}

// A pcapng timestamp past the year 9999 (a huge if_tsoffset) still makes
// a valid JSON report, with a note.
func TestTimestampBeyondJSON(t *testing.T) {
	idb := binary.LittleEndian.AppendUint16(nil, 1)
	idb = binary.LittleEndian.AppendUint16(idb, 0)
	idb = binary.LittleEndian.AppendUint32(idb, 0)
	idb = binary.LittleEndian.AppendUint16(idb, 14) // if_tsoffset
	idb = binary.LittleEndian.AppendUint16(idb, 8)
	idb = binary.LittleEndian.AppendUint64(idb, 400000000000)
	idb = append(idb, 0, 0, 0, 0)
	in := innerTCP(podA, podB, tcpSeg{sport: 40011, dport: 80, flags: "S", seq: 1, id: 9})
	data := append(append(ngSHBytes(), ngBlock(ngIDB, idb)...), ngEPBytes(0, encap(vtepA, vtepB, 4789, 1, in))...)
	r := readReport(t, data)
	out, err := json.Marshal(r)
	if err != nil || !json.Valid(out) || r.VXLANPackets != 1 {
		t.Fatalf("%d VXLAN packets, JSON error %v", r.VXLANPackets, err)
	}
	if !hasNote(r, "timestamps outside the years 1678 to 2262") {
		t.Errorf("notes %q", r.Notes)
	}
}

// readReport reads a capture file's bytes through the whole path: the
// source, the analyzer, the report.
func readReport(t *testing.T, data []byte) *Report {
	t.Helper()
	src, err := NewSourceLimits(bytes.NewReader(data), "corner", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAnalyzer(Options{})
	if err := a.ReadSource(src, "corner"); err != nil {
		t.Fatal(err)
	}
	return a.Finish("corner")
}

// The pipelined reader (more than one CPU) and the serial one give the
// same report, across batch boundaries and on a file cut short.
func TestPipelineMatchesSerial(t *testing.T) {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	in := innerTCP(podA, podB, tcpSeg{sport: 1, dport: 2, flags: "S", id: 1})
	frames := [][]byte{
		encap(vtepA, vtepB, 4789, 100, encap("172.16.0.1", "172.16.0.2", 4789, 200, in)),
		udpFrame(vtepA, vtepB, 49152, 6081, geneve(7, encap("172.16.0.1", "172.16.0.2", 4789, 300, in))),
		udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x0C, 4096, 0x03), in...)),
	}
	for i := range 3000 {
		f := encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: uint16(1000 + i%700), dport: 80, flags: "A", seq: uint32(i), id: uint16(i), payload: i % 900}))
		if i%50 == 0 {
			f = frames[i/50%len(frames)]
		}
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Millisecond), CaptureLength: len(f), Length: len(f)}
		if err := w.WritePacket(ci, f); err != nil {
			t.Fatal(err)
		}
	}
	for _, data := range [][]byte{buf.Bytes(), buf.Bytes()[:buf.Len()-100]} {
		var got [2][]byte
		for i, read := range []func(*Analyzer, *Source) (int64, error){(*Analyzer).readSerial, (*Analyzer).readPipelined} {
			src, err := NewSourceLimits(bytes.NewReader(data), "x", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			a := NewAnalyzer(Options{})
			if _, err := read(a, src); err != nil {
				t.Fatal(err)
			}
			a.limitNotes = append(a.limitNotes, src.Notes()...)
			got[i], _ = json.Marshal(a.Finish("x"))
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("%d bytes: serial and pipelined reports differ:\n%s\n%s", len(data), got[0], got[1])
		}
	}
}

// A source-routed inner packet's transport checksum covers the final
// destination, not the next hop in the IP header: the last address of an
// IPv6 type 0 or 2 routing header or segment list[0] of an SRH while
// segments are left (RFC 8200 §8.1), the last address of an IPv4 LSRR or
// SSRR option while its pointer has not passed it (RFC 791). tshark
// verifies them so; diag called all of them bad.
func TestSourceRoutedChecksum(t *testing.T) {
	frames := map[string][]byte{
		"IPv6 type 2, 1 left":  innerTCPv6Routing(2, 1),
		"IPv6 SRH, 1 left":     innerTCPv6Routing(4, 1),
		"IPv6 type 0, 1 left":  innerTCPv6Routing(0, 1),
		"IPv6 type 2, 0 left":  innerTCPv6Routing(2, 0),
		"IPv6 SRH, 0 left":     innerTCPv6Routing(4, 0),
		"IPv4 LSRR":            innerTCPv4SourceRoute(131, false),
		"IPv4 SSRR":            innerTCPv4SourceRoute(137, false),
		"IPv4 LSRR, exhausted": innerTCPv4SourceRoute(131, true),
		"IPv4 SSRR, exhausted": innerTCPv4SourceRoute(137, true),
	}
	for name, in := range frames {
		if want := oracleTCP(t, in); want.DstPort != 443 {
			t.Fatalf("%s: gopacket decodes TCP port %d", name, want.DstPort)
		}
		if r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, in)}); hasID(r, "CAP-06") || len(r.Flows) != 1 || r.Flows[0].DstPort != 443 {
			t.Errorf("%s: findings %v, flows %+v", name, ids(r), r.Flows)
		}
		bad := append([]byte(nil), in...)
		bad[len(bad)-1] ^= 0x20
		if r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, bad)}); !hasID(r, "CAP-06") {
			t.Errorf("%s, payload corrupted: findings %v", name, ids(r))
		}
	}
}

// FlowsGrew reports the tracked flows at each multiple of FlowsGrewEvery,
// so that the caller can scale its memory limit with them.
func TestFlowsGrewCallback(t *testing.T) {
	var got []int
	a := NewAnalyzer(Options{FlowsGrew: func(n int) { got = append(got, n) }})
	frame := encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: 1, dport: 80, flags: "S", id: 1}))
	for i := range 2*FlowsGrewEvery + 10 {
		// A new flow per packet: the inner source port and IP ID change;
		// checksums are not this test's business.
		binary.BigEndian.PutUint16(frame[50+14+20:], uint16(i%60000+1))
		frame[50+14+12] = byte(i / 60000)
		a.Add(&Packet{Data: frame, Length: len(frame), Time: t0, LinkType: LinkTypeEthernet})
	}
	if !slices.Equal(got, []int{FlowsGrewEvery, 2 * FlowsGrewEvery}) {
		t.Errorf("FlowsGrew called with %v", got)
	}
}

// A directory given as a capture gets one line saying so; a capture whose
// snap length cannot hold a VXLAN header (46 bytes on Ethernet) is read,
// and the report says why nothing inside a tunnel was decoded.
func TestDirectoryAndTinySnaplen(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenLimits(dir, Limits{}); err == nil || !strings.Contains(err.Error(), "a directory, not a pcap or pcapng file") {
		t.Errorf("a directory: %v", err)
	}
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(46, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	frame := encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: 1, dport: 80, flags: "S", id: 1}))
	if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: t0, CaptureLength: 46, Length: len(frame)}, frame[:46]); err != nil {
		t.Fatal(err)
	}
	r := readReport(t, buf.Bytes())
	if r.Packets != 1 || !hasNote(r, "snap length is 46 bytes") || !hasNote(r, "too short for a VXLAN header (50 bytes are needed") {
		t.Errorf("%d packets, notes %q", r.Packets, r.Notes)
	}
}
