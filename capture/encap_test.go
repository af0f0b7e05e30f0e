package capture

import (
	"net"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// Every encapsulation the decoder recognises is followed to its end,
// whatever carries it; a tunnel layer counts only with its whole header.

const vtepC, vtepD = "172.16.0.1", "172.16.0.2"

func tunnelSet(r *Report) map[string]bool {
	out := map[string]bool{}
	for _, t := range r.Tunnels {
		out[tunnelString(t.Src, t.Dst, t.VNI)] = true
	}
	return out
}

// Geneve's protocol type says what it carries: Ethernet (0x6558), IPv4
// (0x0800) or IPv6 (0x86DD) without an Ethernet header. VXLAN inside any
// of them is decoded to the inner flow, under an outer VLAN tag and over
// outer IPv6 too.
func TestGeneveCarriers(t *testing.T) {
	in := innerTCP(podA, podB, tcpSeg{sport: 40100, dport: 80, flags: "S", seq: 1, id: 100})
	cases := []struct {
		name   string
		frame  []byte
		tunnel string
	}{
		{"IPv4", udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x0800, ipOf(encap(vtepC, vtepD, 4789, 300, in)))), "172.16.0.1 → 172.16.0.2 (VNI 300)"},
		{"IPv6", udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x86DD, ipOf(encap(o6a, o6b, 4789, 301, in)))), "2001:db8::1 → 2001:db8::2 (VNI 301)"},
		{"Ethernet over outer IPv6", udpFrame(o6a, o6b, 49152, 6081, geneveProto(7, 0x6558, encap(vtepC, vtepD, 4789, 302, in))), "172.16.0.1 → 172.16.0.2 (VNI 302)"},
		{"IPv4 under a VLAN tag", udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x0800, ipOf(encap(vtepC, vtepD, 4789, 303, in))), layers.EthernetTypeDot1Q), "172.16.0.1 → 172.16.0.2 (VNI 303)"},
	}
	for _, c := range cases {
		r := run(Options{}, pkt{data: c.frame})
		if r.Geneve != 1 || r.VXLANPackets != 1 || len(r.Tunnels) != 1 || !tunnelSet(r)[c.tunnel] {
			t.Errorf("%s: %d Geneve, %d VXLAN, tunnels %v; want 1, 1, %s", c.name, r.Geneve, r.VXLANPackets, tunnelSet(r), c.tunnel)
			continue
		}
		if len(r.Flows) != 1 || r.Flows[0].Src.String() != podA || r.Flows[0].DstPort != 80 || r.Flows[0].State != "syn-sent" {
			t.Errorf("%s: flows %+v", c.name, r.Flows)
		}
	}

	// Geneve carrying a plain IPv4 packet: a Geneve packet, no VXLAN.
	r := run(Options{}, pkt{data: udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x0800, ipOf(in)))})
	if r.Geneve != 1 || r.VXLANPackets != 0 || len(r.Flows) != 0 || r.Malformed != 0 {
		t.Errorf("Geneve/IPv4/TCP: %d Geneve, %d VXLAN, %d flows, %d malformed", r.Geneve, r.VXLANPackets, len(r.Flows), r.Malformed)
	}

	// Geneve (IPv4) inside VXLAN: the flow is the innermost packet, on
	// the VXLAN layer's tunnel, and a corrupt innermost segment is CAP-06.
	bad := append([]byte(nil), in...)
	bad[len(bad)-1] ^= 0xff
	for i, inner := range [][]byte{in, bad} {
		f := encap(vtepA, vtepB, 4789, 100, udpFrame(vtepC, vtepD, 49152, 6081, geneveProto(7, 0x0800, ipOf(inner))))
		r := run(Options{}, pkt{data: f})
		if r.VXLANPackets != 1 || r.Geneve != 1 || len(r.Flows) != 1 || r.Flows[0].DstPort != 80 || r.Flows[0].VNI != 100 || hasID(r, "CAP-06") != (i == 1) {
			t.Errorf("Geneve in VXLAN (corrupt %v): %d VXLAN, %d Geneve, flows %+v, findings %v", i == 1, r.VXLANPackets, r.Geneve, r.Flows, ids(r))
		}
	}
}

// A datagram to a tunnel port counts as a tunnel packet only when the
// tunnel's whole header is there.
func TestTunnelNeedsWholeHeader(t *testing.T) {
	longOpts := geneveProto(7, 0x6558, nil)[:12] // says 8 bytes of options, has 4
	cases := []struct {
		name    string
		opts    Options
		frame   []byte
		geneve  int64
		gpe     int64
		vxlan   int64
		malform int64
	}{
		{"6081, no payload", Options{}, udpFrame(vtepA, vtepB, 49152, 6081, nil), 0, 0, 0, 0},
		{"6081, 3 bytes", Options{}, udpFrame(vtepA, vtepB, 49152, 6081, []byte{0x02, 0, 0x65}), 0, 0, 0, 0},
		{"6081, options cut", Options{}, udpFrame(vtepA, vtepB, 49152, 6081, longOpts), 0, 0, 0, 0},
		{"6081, version 1", Options{}, udpFrame(vtepA, vtepB, 49152, 6081, append([]byte{0x40}, geneveProto(7, 0x6558, nil)[1:]...)), 0, 0, 0, 0},
		{"6081, header only", Options{}, udpFrame(vtepA, vtepB, 49152, 6081, geneveProto(7, 0x6558, nil)), 1, 0, 0, 0},
		{"4789, no payload", Options{}, udpFrame(vtepA, vtepB, 49152, 4789, nil), 0, 0, 0, 0},
		{"8472, no payload", Options{VXLANPorts: []uint16{8472}}, udpFrame(vtepA, vtepB, 49152, 8472, nil), 0, 0, 0, 0},
		{"4790, no payload", Options{}, udpFrame(vtepA, vtepB, 49152, 4790, nil), 0, 0, 0, 0},
		{"4790, 4 bytes", Options{}, udpFrame(vtepA, vtepB, 49152, 4790, []byte{0x0c, 0, 0, 3}), 0, 0, 0, 0},
		// A VXLAN header cut short by the sender stays CAP-08's.
		{"4789, 3 bytes", Options{}, udpFrame(vtepA, vtepB, 49152, 4789, []byte{0x08, 0, 0}), 0, 0, 0, 1},
		{"4789, header only", Options{}, udpFrame(vtepA, vtepB, 49152, 4789, vxlanHdr(0x08, 5, 0)), 0, 0, 1, 0},
	}
	for _, c := range cases {
		r := run(c.opts, pkt{data: c.frame})
		if r.Geneve != c.geneve || r.GPE != c.gpe || r.VXLANPackets != c.vxlan || r.Malformed != c.malform {
			t.Errorf("%s: %d Geneve, %d GPE, %d VXLAN, %d malformed; want %d, %d, %d, %d", c.name, r.Geneve, r.GPE, r.VXLANPackets, r.Malformed,
				c.geneve, c.gpe, c.vxlan, c.malform)
		}
		if c.malform == 0 && hasID(r, "CAP-08") {
			t.Errorf("%s: CAP-08 %v", c.name, summaries(r))
		}
	}
	// Inside another tunnel the same holds: VXLAN carrying an empty
	// datagram to 6081 is a VXLAN packet whose flow is that datagram.
	r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 9, udpFrame(vtepC, vtepD, 49152, 6081, nil))})
	if r.VXLANPackets != 1 || r.Geneve != 0 || len(r.Flows) != 1 || r.Flows[0].DstPort != 6081 {
		t.Errorf("empty Geneve in VXLAN: %d VXLAN, %d Geneve, flows %+v", r.VXLANPackets, r.Geneve, r.Flows)
	}
}

// IEEE 802.3 frames with an LLC/SNAP header carrying IPv4 are followed
// to their EtherType, inside the tunnel and outside it: flows and
// checksum checks as for Ethernet II.
func TestLLCSNAP(t *testing.T) {
	syn := innerTCP(podA, podB, tcpSeg{sport: 40200, dport: 80, flags: "S", seq: 1, id: 200})
	dns := innerUDP(podA, "10.96.0.10", 5300, 53, 201, fill(30))
	ping := innerICMP(podA, podB, 202)
	bad := innerTCP(podA, podB, tcpSeg{sport: 40201, dport: 80, flags: "A", seq: 1, id: 203, payload: 20})
	bad[len(bad)-1] ^= 0xff
	var pkts []pkt
	for _, in := range [][]byte{syn, dns, ping, bad} {
		pkts = append(pkts, pkt{data: encap(vtepA, vtepB, 4789, 1, snapFrame(in))})
	}
	r := run(Options{}, pkts...)
	if r.VXLANPackets != 4 || len(r.Flows) != 4 || !hasID(r, "CAP-06") || r.Malformed != 0 {
		t.Errorf("inner SNAP: %d VXLAN, %d flows, %d malformed, findings %v", r.VXLANPackets, len(r.Flows), r.Malformed, summaries(r))
	}
	for _, fl := range r.Flows {
		if fl.Src.String() != podA {
			t.Errorf("inner SNAP flow %+v", fl)
		}
	}
	// The outer frame in 802.3 with SNAP.
	if r := run(Options{}, pkt{data: snapFrame(encap(vtepA, vtepB, 4789, 1, syn))}); r.VXLANPackets != 1 || len(r.Flows) != 1 {
		t.Errorf("outer SNAP: %d VXLAN, %d flows", r.VXLANPackets, len(r.Flows))
	}
	// LLC without SNAP (spanning tree) and SNAP with another OUI carry no IP.
	stp := append(append([]byte(nil), macB...), macA...)
	stp = append(stp, 0, 38, 0x42, 0x42, 0x03)
	stp = append(stp, make([]byte, 35)...)
	other := snapFrame(syn)
	other[14+5] = 0x0c // OUI 00-00-0C (Cisco's own protocols)
	for name, in := range map[string][]byte{"spanning tree": stp, "OUI 00-00-0C": other} {
		if r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, in)}); r.VXLANPackets != 1 || len(r.Flows) != 0 {
			t.Errorf("%s: %d VXLAN, flows %+v", name, r.VXLANPackets, r.Flows)
		}
	}
	// A Linux cooked capture of an 802.2 frame (protocol 4).
	sll := append([]byte{0, 0, 0, 1, 0, 6}, macA...)
	sll = append(sll, 0, 0, 0, 4)
	sll = append(sll, snapFrame(encap(vtepA, vtepB, 4789, 1, syn))[14:]...)
	if r := run(Options{}, pkt{data: sll, lt: layers.LinkTypeLinuxSLL}); r.VXLANPackets != 1 || len(r.Flows) != 1 {
		t.Errorf("SLL 802.2: %d VXLAN, %d flows", r.VXLANPackets, len(r.Flows))
	}
}

// GRE (ERSPAN mirrors, transparent Ethernet bridging) is not decoded: the
// report says how many packets it left.
func TestGRENotDecoded(t *testing.T) {
	mirrored := encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: 40300, dport: 80, flags: "S", seq: 1, id: 300}))
	r := run(Options{},
		pkt{data: erspanII("10.1.1.1", "10.1.1.2", 1, mirrored)},
		pkt{data: erspanII("10.1.1.1", "10.1.1.2", 2, mirrored)},
		pkt{data: greBridged(o6a, o6b, mirrored)},
		pkt{data: mirrored})
	if r.GRE != 3 || r.VXLANPackets != 1 {
		t.Errorf("%d GRE, %d VXLAN", r.GRE, r.VXLANPackets)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "3 GRE packets not decoded") {
		t.Errorf("no GRE note: %s", notes)
	}
	if r := run(Options{}, pkt{data: mirrored}); strings.Contains(strings.Join(r.Notes, "\n"), "GRE") {
		t.Errorf("a GRE note without GRE: %v", r.Notes)
	}
}

// CAP-07 judges the frame a VXLAN layer carries against that layer's
// destination VTEP, not a frame further in (Geneve inside VXLAN carries
// frames of its own network).
func TestInnerMACOfVXLANLayer(t *testing.T) {
	ctx := seedContext(t)
	in := innerTCP(podA, podB, tcpSeg{sport: 40500, dport: 80, flags: "S", seq: 1, id: 500})
	copy(in, []byte{0x02, 0x42, 0xac, 0x11, 0x00, 0x02}) // the Geneve network's own MAC
	for _, c := range []struct {
		name string
		mac  string
		want bool
	}{{"DR MAC", winMAC, false}, {"stale MAC", "00:15:5d:64:51:0e", true}} {
		g := udpFrame(vtepC, vtepD, 49152, 6081, geneveProto(7, 0x6558, in))
		mac, _ := net.ParseMAC(c.mac)
		copy(g, mac)
		f := encap(linuxVTEP, winVTEP, 4789, 4096, g)
		r := runCtx(ctx, pkt{data: f})
		if r.VXLANPackets != 1 || r.Geneve != 1 || hasID(r, "CAP-07") != c.want {
			t.Errorf("%s: %d VXLAN, %d Geneve, findings %v", c.name, r.VXLANPackets, r.Geneve, summaries(r))
		}
	}
}
