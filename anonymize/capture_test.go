package anonymize

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/gen"
)

// addrLike masks what anonymization changes in a capture report:
// addresses, MACs, and the file path.
var addrLike = regexp.MustCompile(`[0-9a-fA-F]{1,4}(:[0-9a-fA-F]{0,4}){2,7}|\d{1,3}(\.\d{1,3}){3}|([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}|"path":"[^"]*"`)

func captureSignature(t *testing.T, path string) string {
	t.Helper()
	a := capture.NewAnalyzer(capture.Options{VXLANPorts: []uint16{4789, 8472}})
	if err := a.ReadFile(path); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := json.Marshal(a.Finish("node"))
	if err != nil {
		t.Fatal(err)
	}
	return addrLike.ReplaceAllString(string(b), "X")
}

// TestCaptureSameAnalysis: a capture decodes the same after anonymizing
// (packets, tunnels, flows, their states and checksum verdicts, the
// findings), with every address in it changed: outer and inner.
func TestCaptureSameAnalysis(t *testing.T) {
	dir := t.TempDir()
	files := []string{filepath.Join("..", "testdata", "captures", "seed-syn-unanswered.pcap")}
	// Handshakes through VXLAN, in pcap and in pcapng cut at a snap length.
	pkts := append(gen.Handshake(0, "10.127.130.36", "10.127.130.37", "10.244.1.5", "10.244.2.7", 40000, 80, 4096, "00-15-5D-64-51-0E", "0E-2A-0A-F4-02-00"),
		gen.Handshake(1e9, "172.31.4.5", "172.31.9.9", "192.168.3.4", "192.168.7.8", 41000, 443, 4097, "02-42-AC-11-00-02", "c6:71:81:86:b2:77")...)
	for _, w := range []struct {
		name  string
		write func(string) error
	}{
		{"gen.pcap", func(p string) error { return gen.WritePcap(p, pkts) }},
		{"gen.pcapng", func(p string) error { return gen.WritePcapng(p, pkts, 0) }},
		{"gen-snap.pcapng", func(p string) error { return gen.WritePcapng(p, pkts, 96) }},
	} {
		p := filepath.Join(dir, w.name)
		if err := w.write(p); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	shared, _ := filepath.Glob(filepath.Join("..", "..", "shared", "captures", "*", "*.pcap*"))
	if len(shared) == 0 {
		t.Log("../shared/captures absent: the public traces are not checked")
	}
	files = append(files, shared...)
	a := testAnonymizer()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Capture(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(out) != len(data) && !strings.Contains(f, ".pcapng") {
			t.Errorf("%s: %d bytes became %d", f, len(data), len(out))
		}
		p := filepath.Join(dir, "anon-"+filepath.Base(f))
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, want := captureSignature(t, p), captureSignature(t, f); got != want {
			t.Errorf("%s: the analysis changed:\n got %.600s\nwant %.600s", f, got, want)
		}
	}
}

// icmp6Sum is the ICMPv6 checksum over the pseudo-header and the message.
func icmp6Sum(src, dst, msg []byte) uint16 {
	var s uint32
	add := func(b []byte) {
		for i := 0; i+1 < len(b); i += 2 {
			s += uint32(b[i])<<8 | uint32(b[i+1])
		}
		if len(b)%2 == 1 {
			s += uint32(b[len(b)-1]) << 8
		}
	}
	add(src)
	add(dst)
	s += uint32(len(msg)) + 58
	add(msg)
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// TestIPv6ExtensionHeaders: an MLDv2 report behind a hop-by-hop header
// keeps a valid ICMPv6 checksum after its addresses are mapped.
func TestIPv6ExtensionHeaders(t *testing.T) {
	src := netip.MustParseAddr("fd00:10:244:2::5").As16()
	dst := netip.MustParseAddr("ff02::16").As16()
	msg := []byte{143, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfb}
	sum := icmp6Sum(src[:], dst[:], msg)
	msg[2], msg[3] = byte(sum>>8), byte(sum)
	hbh := []byte{58, 0, 5, 2, 0, 0, 1, 0}
	pkt := []byte{0x60, 0, 0, 0, 0, byte(len(hbh) + len(msg)), 0, 1}
	pkt = append(append(append(append(pkt, src[:]...), dst[:]...), hbh...), msg...)
	a := testAnonymizer()
	a.frame(pkt, 229) // LINKTYPE_IPV6
	newSrc := pkt[8:24]
	if netip.AddrFrom16([16]byte(newSrc)) == netip.AddrFrom16(src) {
		t.Fatal("source not mapped")
	}
	m := pkt[48:]
	got := uint16(m[2])<<8 | uint16(m[3])
	m[2], m[3] = 0, 0
	if want := icmp6Sum(pkt[8:24], pkt[24:40], m); got != want {
		t.Errorf("ICMPv6 checksum %04x after mapping, want %04x", got, want)
	}
}

// Addresses inside every tunnel a capture may carry are mapped: the
// pod-to-pod packets of Calico's IP-in-IP mode, GRE, Geneve carrying IP,
// VXLAN-GPE, and VXLAN inside a datagram over 64 KiB (length 0).
func TestTunnelledAddressesMapped(t *testing.T) {
	podA, podB := []byte{10, 244, 77, 5}, []byte{10, 244, 78, 9}
	node := []byte{192, 168, 50, 11}
	ip4 := func(src, dst []byte, proto byte, body []byte) []byte {
		n := 20 + len(body)
		h := []byte{0x45, 0, byte(n >> 8), byte(n), 0, 1, 0, 0, 64, proto, 0, 0}
		return append(append(append(h, src...), dst...), body...)
	}
	udp := func(dport uint16, body []byte) []byte {
		n := 8 + len(body)
		return append([]byte{0xc0, 0, byte(dport >> 8), byte(dport), byte(n >> 8), byte(n), 0, 0}, body...)
	}
	eth := func(et uint16, body []byte) []byte {
		return append([]byte{0, 0x15, 0x5d, 1, 2, 3, 0, 0x15, 0x5d, 4, 5, 6, byte(et >> 8), byte(et)}, body...)
	}
	inner := ip4(podA, podB, 6, make([]byte, 20))
	jumbo := ip4(node, node, 17, udp(4789, append([]byte{8, 0, 0, 0, 0, 0, 1, 0}, eth(0x0800, inner)...)))
	jumbo[2], jumbo[3] = 0, 0
	jumbo[24], jumbo[25] = 0, 0
	for name, pkt := range map[string][]byte{
		"IP in IP":  eth(0x0800, ip4(node, node, 4, inner)),
		"GRE":       eth(0x0800, ip4(node, node, 47, append([]byte{0, 0, 0x08, 0}, inner...))),
		"Geneve IP": eth(0x0800, ip4(node, node, 17, udp(6081, append([]byte{0, 0, 0x08, 0, 0, 0, 1, 0}, inner...)))),
		"VXLAN-GPE": eth(0x0800, ip4(node, node, 17, udp(4790, append([]byte{0x0c, 0, 0, 1, 0, 0, 1, 0}, inner...)))),
		"BIG TCP":   eth(0x0800, jumbo),
	} {
		a := testAnonymizer()
		a.frame(pkt, 1)
		for _, addr := range [][]byte{podA, podB, node} {
			if bytes.Contains(pkt, addr) {
				t.Errorf("%s: %v left in the packet", name, addr)
			}
		}
	}
}
