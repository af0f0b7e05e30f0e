package payload

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// flipper is a Visitor that changes every address it is shown (as
// anonymize does) and records what it saw.
type flipper struct {
	macs, ips int
	payloads  []string
}

func (f *flipper) MAC(b []byte) { f.macs++; b[5] ^= 0xA5 }
func (f *flipper) IP(b []byte)  { f.ips++; b[len(b)-1] ^= 0x5A; b[0] ^= 0x01 }
func (f *flipper) Payload(p []byte, _ byte, _, _ uint16) {
	f.payloads = append(f.payloads, string(p))
}

func walkOne(t *testing.T, pkt []byte, link uint32, ports ...uint16) *flipper {
	t.Helper()
	f := &flipper{}
	NewWalker(f, ports...).Packet(pkt, link)
	return f
}

// ipv4Right says whether an IPv4 header's checksum is right.
func ipv4Right(h []byte) bool { return OnesSum(h[:int(h[0]&15)*4]) == 0xffff }

// segRight says whether the checksum of the transport segment after the
// IPv4 header h is right over h's (mapped) addresses.
func segRight(h []byte, proto byte) bool {
	ihl := int(h[0]&15) * 4
	return verify(h[12:16], h[16:20], proto, h[ihl:]) == 0xffff
}

// Addresses and MACs inside every tunnel the walk follows are reached,
// and every checksum over them stays right.
func TestWalkReachesInsideEveryTunnel(t *testing.T) {
	innerTCP := ipv4(6, tcpSeg(51234, 6443, secret))
	for _, c := range []struct {
		name       string
		pkt        []byte
		macs, ips  int
		inner      int // offset of the inner IPv4 header in pkt
		innerProto byte
	}{
		{"IP in IP", frame(ipv4(4, innerTCP)), 2, 4, 14 + 20, 6},
		{"GRE with checksum, Ethernet inside", func() []byte {
			gre := append([]byte{0x80, 0, 0x65, 0x58, 0, 0, 0, 0}, frame(innerTCP)...)
			binary.BigEndian.PutUint16(gre[4:], ^uint16(OnesSum(gre)))
			return frame(ipv4(47, gre))
		}(), 4, 4, 14 + 20 + 8 + 14, 6},
		{"Geneve with an option, IPv4 inside", frame(ipv4(17, udpSeg(49152, 6081,
			append([]byte{0x01, 0, 0x08, 0x00, 0, 0, 0x10, 0, 0x01, 0x02, 0x03, 0x00}, innerTCP...), true))),
			2, 4, 14 + 20 + 8 + 12, 6},
		{"VXLAN-GPE, IPv4 inside", frame(ipv4(17, udpSeg(49152, 4790,
			append([]byte{0x0c, 0, 0, 1, 0, 0, 0x10, 0}, innerTCP...), true))), 2, 4, 14 + 20 + 8 + 8, 6},
		{"VXLAN on a port given", frame(ipv4(17, udpSeg(49152, 9999,
			append([]byte{0x08, 0, 0, 0, 0, 0x10, 0, 0}, frame(innerTCP)...), true))), 4, 4, 14 + 20 + 8 + 8 + 14, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			pkt := append([]byte(nil), c.pkt...)
			f := walkOne(t, pkt, linkEthernet, 9999)
			if f.macs != c.macs || f.ips != c.ips {
				t.Errorf("saw %d MACs and %d addresses, want %d and %d", f.macs, f.ips, c.macs, c.ips)
			}
			if len(f.payloads) != 1 || f.payloads[0] != secret {
				t.Errorf("payloads %q, want the inner TCP payload", f.payloads)
			}
			outer, inner := pkt[14:], pkt[c.inner:]
			if !ipv4Right(outer) || !ipv4Right(inner) {
				t.Error("an IPv4 header checksum is no longer right")
			}
			if !segRight(inner, c.innerProto) {
				t.Error("the inner TCP checksum is no longer right")
			}
			if outer[9] == 17 && !segRight(outer, 17) {
				t.Error("the outer UDP checksum is no longer right")
			}
			if outer[9] == 47 && OnesSum(outer[20:]) != 0xffff {
				t.Error("the GRE checksum is no longer right")
			}
		})
	}
}

// Packets over 64 KiB as a Linux host captures them before segmenting
// (GSO, BIG TCP): an IPv4 total length of 0, a UDP length of 0, an IPv6
// payload length of 0. They run to the end of what was captured.
func TestWalkLengthsOfZero(t *testing.T) {
	vx := append([]byte{0x08, 0, 0, 0, 0, 0x10, 0, 0}, frame(ipv4(6, tcpSeg(51234, 6443, secret)))...)
	udp := udpSeg(49152, 4789, vx, false)
	udp[4], udp[5] = 0, 0
	ip := ipv4(17, udp)
	ip[2], ip[3] = 0, 0
	binary.BigEndian.PutUint16(ip[10:], 0)
	binary.BigEndian.PutUint16(ip[10:], ^uint16(OnesSum(ip[:20])))
	f := walkOne(t, frame(ip), linkEthernet)
	if len(f.payloads) != 1 || f.payloads[0] != secret || f.ips != 4 {
		t.Errorf("IPv4 and UDP lengths of 0: %d addresses, payloads %q", f.ips, f.payloads)
	}

	v6 := make([]byte, 40)
	v6[0], v6[6], v6[7] = 0x60, 6, 64 // payload length 0: a jumbogram
	v6[8], v6[24] = 0xfd, 0xfd
	seg := tcpSeg(51234, 6443, secret)
	f = walkOne(t, append(v6, seg...), linkIPv6)
	if len(f.payloads) != 1 || f.payloads[0] != secret || f.ips != 2 {
		t.Errorf("IPv6 payload length of 0: %d addresses, payloads %q", f.ips, f.payloads)
	}
}

// ARP's addresses are reached; an ICMP error's quoted header is mapped
// with its own checksum and the ICMP checksum kept right.
func TestWalkARPAndICMPQuotes(t *testing.T) {
	arp := []byte{0, 1, 0x08, 0x00, 6, 4, 0, 1, 1, 2, 3, 4, 5, 6, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2}
	f := walkOne(t, append(append([]byte(nil), eth[:12]...), append([]byte{0x08, 0x06}, arp...)...), linkEthernet)
	if f.macs != 4 || f.ips != 2 {
		t.Errorf("ARP: %d MACs, %d addresses, want 4 and 2", f.macs, f.ips)
	}

	quoted := ipv4(17, udpSeg(49152, 4789, make([]byte, 8), true))[:28]
	icmp := append([]byte{3, 4, 0, 0, 0, 0, 0x05, 0xdc}, quoted...)
	binary.BigEndian.PutUint16(icmp[2:], ^uint16(OnesSum(icmp)))
	pkt := frame(ipv4(1, icmp))
	f = walkOne(t, pkt, linkEthernet)
	if f.ips != 4 {
		t.Errorf("ICMP error: %d addresses, want 4 (its header's and the quoted header's)", f.ips)
	}
	msg := pkt[14+20:]
	if OnesSum(msg) != 0xffff || !ipv4Right(msg[8:]) {
		t.Error("the ICMP checksum or the quoted header's is no longer right")
	}
}

// A checksum left to the NIC gets the new pseudo-header's sum; a wrong one
// stays wrong by as much; a UDP checksum of zero stays zero.
func TestWalkChecksumKinds(t *testing.T) {
	seg := tcpSeg(51234, 6443, secret)
	n := len(seg)
	binary.BigEndian.PutUint16(seg[16:], uint16(PartialSum(append(append([]byte(nil), srcIP...), dstIP...), 6, n, true)))
	pkt := frame(ipv4(6, seg))
	walkOne(t, pkt, linkEthernet)
	h := pkt[14:]
	if got, want := uint32(binary.BigEndian.Uint16(h[20+16:])), PartialSum(h[12:20], 6, n, true); got != want {
		t.Errorf("offloaded checksum %#x, want the new pseudo-header's %#x", got, want)
	}

	seg = tcpSeg(51234, 6443, secret)
	seg[16] ^= 0x12 // wrong
	wrong := verify(srcIP, dstIP, 6, seg)
	pkt = frame(ipv4(6, seg))
	walkOne(t, pkt, linkEthernet)
	h = pkt[14:]
	if got := verify(h[12:16], h[16:20], 6, h[20:]); got != wrong {
		t.Errorf("a wrong checksum sums to %#x after the walk, %#x before", got, wrong)
	}

	pkt = frame(ipv4(17, udpSeg(40000, 53, []byte("dns"), false)))
	walkOne(t, pkt, linkEthernet)
	if !bytes.Equal(pkt[14+20+6:14+20+8], []byte{0, 0}) {
		t.Error("a UDP checksum of zero (none) was filled in")
	}
}

// FuzzWalk: any bytes, of any link type, are walked without a panic and
// without growing or shrinking.
func FuzzWalk(f *testing.F) {
	f.Add(frame(ipv4(4, ipv4(6, tcpSeg(1, 2, "x")))), uint32(linkEthernet))
	f.Add(ipv4(17, udpSeg(1, 6081, []byte{0x3f, 0, 0x65, 0x58, 0, 0, 0, 0}, true)), uint32(linkRaw))
	f.Add([]byte{0x60, 0, 0, 0, 0, 0, 44, 64}, uint32(linkIPv6))
	f.Add(ipv4(17, udpSeg(53, 1, []byte{0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 5, 0, 4, 10, 0, 0, 1}, true)), uint32(linkRaw))
	f.Add(ipv4(17, udpSeg(1, 4790, []byte{0x0c, 0, 0, 4, 0, 0, 1, 0, 0x0f, 0xc2, 0x02, 0x03, 0, 0, 1, 0xff}, true)), uint32(linkRaw))
	f.Fuzz(func(t *testing.T, pkt []byte, link uint32) {
		n := len(pkt)
		NewWalker(&flipper{}, 9999).Packet(pkt, link%300)
		if len(pkt) != n {
			t.Fatal("the packet changed length")
		}
	})
}

// Addresses past the headers: a DNS answer's A and AAAA records (over UDP
// and over TCP), an ICMP redirect's gateway; the checksums stay right over
// them.
func TestWalkAddressesInMessages(t *testing.T) {
	dns := []byte{0, 1, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0}
	dns = append(dns, 3, 'w', 'e', 'b', 0, 0, 1, 0, 1)                        // the question
	dns = append(dns, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 5, 0, 4, 10, 244, 77, 5) // A
	dns = append(dns, 0xc0, 12, 0, 28, 0, 1, 0, 0, 0, 5, 0, 16)
	dns = append(dns, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5) // AAAA
	pkt := frame(ipv4(17, udpSeg(53, 40001, dns, true)))
	f := walkOne(t, pkt, linkEthernet)
	if f.ips != 4 || !segRight(pkt[14:], 17) {
		t.Errorf("DNS over UDP: %d addresses (want 2 of the header, 2 answers), checksum right %v", f.ips, segRight(pkt[14:], 17))
	}
	tcp := tcpSeg(53, 40002, string(append([]byte{0, byte(len(dns))}, dns...)))
	pkt = frame(ipv4(6, tcp))
	if f := walkOne(t, pkt, linkEthernet); f.ips != 4 || !segRight(pkt[14:], 6) {
		t.Errorf("DNS over TCP: %d addresses, checksum right %v", f.ips, segRight(pkt[14:], 6))
	}
	cut := frame(ipv4(17, udpSeg(53, 40001, dns[:len(dns)-10], true)))
	if f := walkOne(t, cut, linkEthernet); f.ips != 3 {
		t.Errorf("DNS cut inside its AAAA record: %d addresses, want the header's and the A record", f.ips)
	}

	quoted := ipv4(17, udpSeg(5000, 6000, nil, false))
	redirect := append([]byte{5, 1, 0, 0, 192, 168, 50, 1}, quoted...)
	binary.BigEndian.PutUint16(redirect[2:], ^uint16(OnesSum(redirect)))
	pkt = frame(ipv4(1, redirect))
	if f := walkOne(t, pkt, linkEthernet); f.ips != 5 || OnesSum(pkt[14+20:]) != 0xffff {
		t.Errorf("ICMP redirect: %d addresses (want the header's 2, the gateway, the quoted 2)", f.ips)
	}
}

// Neighbour discovery: the target, the link-layer address options, a
// router advertisement's prefix and DNS servers; the ICMPv6 checksum stays
// right over the pseudo-header and the message.
func TestWalkNeighbourDiscovery(t *testing.T) {
	src := []byte{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5}
	dst := []byte{0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0, 0, 9}
	v6 := func(msg []byte) []byte {
		ph := append(append(append([]byte(nil), src...), dst...), 0, 0, byte(len(msg)>>8), byte(len(msg)), 0, 0, 0, 58)
		binary.BigEndian.PutUint16(msg[2:], ^uint16(Fold(uint64(OnesSum(ph))+uint64(OnesSum(msg)))))
		h := append([]byte{0x60, 0, 0, 0, byte(len(msg) >> 8), byte(len(msg)), 58, 255}, src...)
		return append(append(h, dst...), msg...)
	}
	right := func(p []byte) bool {
		ph := append(append(append([]byte(nil), p[8:24]...), p[24:40]...), 0, 0, byte((len(p)-40)>>8), byte(len(p)-40), 0, 0, 0, 58)
		return Fold(uint64(OnesSum(ph))+uint64(OnesSum(p[40:]))) == 0xffff
	}
	target := append([]byte(nil), src...)
	target[15] = 9
	ns := append(append([]byte{135, 0, 0, 0, 0, 0, 0, 0}, target...), 1, 1, 0, 0x15, 0x5d, 7, 8, 9)
	pkt := v6(ns)
	if f := walkOne(t, pkt, linkIPv6); f.ips != 3 || f.macs != 1 || !right(pkt) {
		t.Errorf("neighbour solicitation: %d addresses, %d MACs (want 3 and 1), checksum right %v", f.ips, f.macs, right(pkt))
	}
	ra := []byte{134, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	ra = append(ra, 3, 4, 64, 0xc0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0)
	ra = append(ra, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) // prefix
	ra = append(ra, 25, 3, 0, 0, 0, 0, 0, 60)
	ra = append(ra, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x53) // a DNS server
	pkt = v6(ra)
	if f := walkOne(t, pkt, linkIPv6); f.ips != 4 || !right(pkt) {
		t.Errorf("router advertisement: %d addresses (want 2 of the header, the prefix, the DNS server), checksum right %v", f.ips, right(pkt))
	}
}
