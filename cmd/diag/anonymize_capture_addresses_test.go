package main

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"path/filepath"
	"testing"
)

// Addresses a packet carries past its IP headers, where tshark shows them:
// a DNS answer (DNS payloads are kept), the target and link-layer option
// of IPv6 neighbour discovery, the gateway of an ICMP redirect, and the
// frames inside VXLAN whose I flag is clear and inside NSH over VXLAN-GPE
// (tcpdump's nsh-over-vxlan-gpe.pcap). After bundle anonymize none of the
// original addresses or MACs may be left in the capture.
func TestAnonymizeCaptureAddressesPastTheIPHeader(t *testing.T) {
	node := netip.MustParseAddr("192.168.50.11").As4()
	peer := netip.MustParseAddr("192.168.50.12").As4()
	pod := netip.MustParseAddr("10.244.77.5").As4()
	pod2 := netip.MustParseAddr("10.244.78.9").As4()
	gw := netip.MustParseAddr("192.168.50.1").As4()
	v6a := netip.MustParseAddr("fd00:10:244:2::5").As16()
	v6t := netip.MustParseAddr("fd00:10:244:2::9").As16()
	macA := []byte{0x00, 0x15, 0x5d, 0x11, 0x22, 0x33}
	macB := []byte{0x00, 0x15, 0x5d, 0x44, 0x55, 0x66}
	macT := []byte{0x00, 0x15, 0x5d, 0x77, 0x88, 0x99}

	eth := func(et uint16, body []byte) []byte {
		h := append(append([]byte(nil), macA...), macB...)
		return append(append(h, byte(et>>8), byte(et)), body...)
	}
	ip4 := func(src, dst [4]byte, proto byte, body []byte) []byte {
		n := 20 + len(body)
		h := []byte{0x45, 0, byte(n >> 8), byte(n), 0, 1, 0, 0, 64, proto, 0, 0}
		h = append(append(h, src[:]...), dst[:]...)
		binary.BigEndian.PutUint16(h[10:], ^leakSum(h))
		return append(h, body...)
	}
	udp := func(sport, dport uint16, body []byte) []byte {
		n := 8 + len(body)
		return append([]byte{byte(sport >> 8), byte(sport), byte(dport >> 8), byte(dport), byte(n >> 8), byte(n), 0, 0}, body...)
	}
	innerFrame := eth(0x0800, ip4(pod, pod2, 17, udp(5000, 6000, make([]byte, 8))))

	// A DNS response: web.default.svc.cluster.local A 10.244.77.5.
	dns := []byte{0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0}
	qname := []byte{}
	for _, l := range []string{"web", "default", "svc", "cluster", "local"} {
		qname = append(append(qname, byte(len(l))), l...)
	}
	qname = append(qname, 0)
	dns = append(append(dns, qname...), 0, 1, 0, 1)
	dns = append(dns, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 5, 0, 4)
	dns = append(dns, pod[:]...)

	// A neighbour solicitation for fd00:10:244:2::9 from macT.
	ns := []byte{135, 0, 0, 0, 0, 0, 0, 0}
	ns = append(append(ns, v6t[:]...), 1, 1)
	ns = append(ns, macT...)
	solicited := netip.MustParseAddr("ff02::1:ff00:9").As16()
	ph := append(append(append([]byte(nil), v6a[:]...), solicited[:]...), 0, 0, 0, byte(len(ns)), 0, 0, 0, 58)
	binary.BigEndian.PutUint16(ns[2:], ^leakSum(append(ph, ns...)))
	ip6 := append([]byte{0x60, 0, 0, 0, 0, byte(len(ns)), 58, 255}, v6a[:]...)
	ip6 = append(append(ip6, solicited[:]...), ns...)

	// An ICMP redirect to gateway 192.168.50.1, quoting the packet it answers.
	quoted := ip4(node, pod2, 17, udp(5000, 6000, nil))
	redirect := append([]byte{5, 1, 0, 0}, gw[:]...)
	redirect = append(redirect, quoted...)
	binary.BigEndian.PutUint16(redirect[2:], ^leakSum(redirect))

	// NSH (MD type 2, no metadata; next protocol Ethernet) over VXLAN-GPE.
	nsh := []byte{0x0f, 0xc2, 0x02, 0x03, 0, 0, 1, 0xff}

	for name, c := range map[string]struct {
		pkt  []byte
		gone [][]byte
	}{
		"DNS answer":          {eth(0x0800, ip4(node, peer, 17, udp(53, 40001, dns))), [][]byte{pod[:]}},
		"neighbour discovery": {eth(0x86dd, ip6), [][]byte{v6t[:], macT}},
		"ICMP redirect":       {eth(0x0800, ip4(gw, node, 1, redirect)), [][]byte{gw[:]}},
		"VXLAN, I flag clear": {eth(0x0800, ip4(node, peer, 17, udp(33333, 4789, append([]byte{0, 0, 0, 0, 0, 0, 1, 0}, innerFrame...)))), [][]byte{pod[:], pod2[:]}},
		"NSH over VXLAN-GPE":  {eth(0x0800, ip4(node, peer, 17, udp(33333, 4790, append(append([]byte{0x0c, 0, 0, 4, 0, 0, 1, 0}, nsh...), innerFrame...)))), [][]byte{pod[:], pod2[:]}},
	} {
		t.Run(name, func(t *testing.T) {
			in := copyTree(t, seedBroken)
			pcap := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0}
			var h [16]byte
			binary.LittleEndian.PutUint32(h[8:], uint32(len(c.pkt)))
			binary.LittleEndian.PutUint32(h[12:], uint32(len(c.pkt)))
			pcap = append(append(pcap, h[:]...), c.pkt...)
			writeFile(t, filepath.Join(in, "capture", "node.pcap"), pcap)
			out := filepath.Join(t.TempDir(), "a.zip")
			r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--key-file", anonymizeKey(t, t.TempDir()))
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			got := readZip(t, out)["capture/node.pcap"]
			if len(got) != len(pcap) {
				t.Fatalf("the capture is %d bytes, was %d", len(got), len(pcap))
			}
			for _, b := range c.gone {
				if bytes.Contains(got[24+16:], b) {
					t.Errorf("% x is left in the anonymized capture", b)
				}
			}
		})
	}
}

// leakSum is the ones'-complement sum of b (uncomplemented).
func leakSum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}
