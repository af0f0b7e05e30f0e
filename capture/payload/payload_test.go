package payload

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"testing"
)

var (
	srcIP = []byte{10, 244, 1, 5}
	dstIP = []byte{10, 1, 0, 4}
	eth   = []byte{0, 0x15, 0x5d, 1, 2, 3, 0, 0x15, 0x5d, 4, 5, 6, 0x08, 0x00}
)

// sum16 is the checksum of a transport segment over its IPv4 or IPv6
// pseudo-header, computed whole.
func sum16(src, dst []byte, proto byte, seg []byte) uint16 {
	ph := append(append([]byte(nil), src...), dst...)
	ph = append(ph, 0, proto, byte(len(seg)>>8), byte(len(seg)))
	return ^uint16(Fold(uint64(OnesSum(ph)) + uint64(OnesSum(seg))))
}

// verify is what summing a segment with its checksum in gives: 0xffff
// when the checksum is right.
func verify(src, dst []byte, proto byte, seg []byte) uint32 {
	ph := append(append([]byte(nil), src...), dst...)
	ph = append(ph, 0, proto, byte(len(seg)>>8), byte(len(seg)))
	return Fold(uint64(OnesSum(ph)) + uint64(OnesSum(seg)))
}

func tcpSeg(sport, dport uint16, payload string) []byte {
	seg := make([]byte, 20, 20+len(payload))
	binary.BigEndian.PutUint16(seg[0:], sport)
	binary.BigEndian.PutUint16(seg[2:], dport)
	seg[12] = 0x50
	seg[13] = 0x18
	seg = append(seg, payload...)
	binary.BigEndian.PutUint16(seg[16:], sum16(srcIP, dstIP, 6, seg))
	return seg
}

func udpSeg(sport, dport uint16, payload []byte, withSum bool) []byte {
	seg := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(seg[0:], sport)
	binary.BigEndian.PutUint16(seg[2:], dport)
	binary.BigEndian.PutUint16(seg[4:], uint16(8+len(payload)))
	seg = append(seg, payload...)
	if withSum {
		binary.BigEndian.PutUint16(seg[6:], sum16(srcIP, dstIP, 17, seg))
	}
	return seg
}

func ipv4(proto byte, seg []byte) []byte {
	n := 20 + len(seg)
	ip := []byte{0x45, 0, byte(n >> 8), byte(n), 0, 1, 0, 0, 64, proto, 0, 0}
	ip = append(append(ip, srcIP...), dstIP...)
	binary.BigEndian.PutUint16(ip[10:], ^uint16(OnesSum(ip)))
	return append(ip, seg...)
}

func frame(l3 []byte) []byte { return append(append([]byte(nil), eth...), l3...) }

// pcapOf writes frames as a little-endian pcap of Ethernet.
func pcapOf(frames ...[]byte) []byte {
	out := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0}
	for _, f := range frames {
		var h [16]byte
		binary.LittleEndian.PutUint32(h[8:], uint32(len(f)))
		binary.LittleEndian.PutUint32(h[12:], uint32(len(f)))
		out = append(append(out, h[:]...), f...)
	}
	return out
}

const secret = "Authorization: Bearer Pcap7TokenValue99\r\n"

func TestClearTCPKeepsChecksumRight(t *testing.T) {
	seg := tcpSeg(51234, 6443, "GET / HTTP/1.1\r\n"+secret)
	data := pcapOf(frame(ipv4(6, seg)))
	out, n, err := Clear(data)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("Pcap7")) || n != int64(len(seg)-20) {
		t.Fatalf("cleared %d bytes of %d; token left: %v", n, len(seg)-20, bytes.Contains(out, []byte("Pcap7")))
	}
	got := out[24+16+14+20:]
	if v := verify(srcIP, dstIP, 6, got); v != 0xffff {
		t.Errorf("checksum no longer right: %#x", v)
	}
	if !bytes.Equal(got[:16], seg[:16]) {
		t.Error("TCP header changed")
	}
}

func TestClearKeepsWrongChecksumWrong(t *testing.T) {
	seg := tcpSeg(51234, 80, secret)
	seg[16] ^= 0x5a // wrong by a fixed amount
	before := verify(srcIP, dstIP, 6, seg)
	data := pcapOf(frame(ipv4(6, append([]byte(nil), seg...))))
	out, _, err := Clear(data)
	if err != nil {
		t.Fatal(err)
	}
	if after := verify(srcIP, dstIP, 6, out[24+16+14+20:]); after != before || after == 0xffff {
		t.Errorf("a wrong checksum's error changed: %#x, was %#x", after, before)
	}
}

func TestClearKeepsDNSAndICMPAndNoChecksum(t *testing.T) {
	dns := udpSeg(53000, 53, []byte("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x03www\x07example\x03com\x00\x00\x01\x00\x01"), true)
	icmp := []byte{3, 3, 0, 0, 0, 0, 0, 0}
	icmp = append(icmp, ipv4(17, udpSeg(1, 2, []byte("quoted"), false))[:28]...)
	binary.BigEndian.PutUint16(icmp[2:], ^uint16(OnesSum(icmp)))
	plain := udpSeg(40000, 514, []byte("syslog "+secret), false)
	data := pcapOf(frame(ipv4(17, dns)), frame(ipv4(1, icmp)), frame(ipv4(17, plain)))
	orig := append([]byte(nil), data...)
	out, n, err := Clear(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("\x07example")) {
		t.Error("DNS or ICMP payload cleared")
	}
	if bytes.Contains(out, []byte("Pcap7")) || n != int64(len(plain)-8) {
		t.Errorf("UDP payload: cleared %d of %d", n, len(plain)-8)
	}
	// The syslog datagram had no checksum: still none.
	last := out[len(out)-len(plain):]
	if last[6] != 0 || last[7] != 0 {
		t.Errorf("UDP checksum of zero became %x", last[6:8])
	}
	if !bytes.Equal(out[:len(out)-len(plain)], orig[:len(orig)-len(plain)]) {
		t.Error("packets without a payload to clear changed")
	}
}

func TestClearWalksVXLAN(t *testing.T) {
	inner := frame(ipv4(6, tcpSeg(51234, 6443, secret)))
	vx := append([]byte{0x08, 0, 0, 0, 0, 0x10, 0, 0}, inner...)
	outer := udpSeg(49152, 4789, vx, true)
	data := pcapOf(frame(ipv4(17, outer)))
	out, n, err := Clear(data)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("Pcap7")) || n != int64(len(secret)) {
		t.Fatalf("cleared %d, want %d", n, len(secret))
	}
	o := out[24+16+14+20:]
	if v := verify(srcIP, dstIP, 17, o); v != 0xffff {
		t.Errorf("outer UDP checksum no longer right: %#x", v)
	}
	in := o[8+8+14+20:]
	if v := verify(srcIP, dstIP, 6, in); v != 0xffff {
		t.Errorf("inner TCP checksum no longer right: %#x", v)
	}
	if !bytes.Equal(o[:8+8+14+20], outer[:8+8+14+20]) && !bytes.Equal(o[8:8+8+14+20], outer[8:8+8+14+20]) {
		t.Error("tunnel headers changed")
	}
}

func TestClearLeavesOffloadedChecksum(t *testing.T) {
	seg := tcpSeg(51234, 6443, secret)
	partial := PartialSum(append(append([]byte(nil), srcIP...), dstIP...), 6, len(seg), true)
	binary.BigEndian.PutUint16(seg[16:], uint16(partial))
	out, _, err := Clear(pcapOf(frame(ipv4(6, seg))))
	if err != nil {
		t.Fatal(err)
	}
	if got := binary.BigEndian.Uint16(out[24+16+14+20+16:]); uint32(got) != partial {
		t.Errorf("an offloaded checksum changed: %#x, was %#x", got, partial)
	}
}

func TestClearCutShortAndIPv6(t *testing.T) {
	seg := tcpSeg(51234, 6443, secret+secret)
	f := frame(ipv4(6, seg))
	cut := f[:len(f)-10] // the snap length cut the packet
	data := pcapOf(cut)
	binary.LittleEndian.PutUint32(data[24+12:], uint32(len(f))) // its length on the wire
	out, n, err := Clear(data)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(seg)-20-10) || bytes.Contains(out, []byte("Pcap7")) {
		t.Errorf("cut packet: cleared %d", n)
	}
	// IPv6 with a hop-by-hop header.
	src6 := bytes.Repeat([]byte{0xfd, 1}, 8)
	dst6 := bytes.Repeat([]byte{0xfd, 2}, 8)
	t6 := make([]byte, 20)
	t6[12] = 0x50
	t6 = append(t6, secret...)
	ph := append(append([]byte(nil), src6...), dst6...)
	ph = append(ph, 0, 0, byte(len(t6)>>8), byte(len(t6)), 0, 0, 0, 6)
	binary.BigEndian.PutUint16(t6[16:], ^uint16(Fold(uint64(OnesSum(ph))+uint64(OnesSum(t6)))))
	hbh := []byte{6, 0, 1, 4, 0, 0, 0, 0}
	ip6 := []byte{0x60, 0, 0, 0, 0, byte(len(hbh) + len(t6)), 0, 64}
	ip6 = append(append(append(append(ip6, src6...), dst6...), hbh...), t6...)
	f6 := append([]byte{0, 0x15, 0x5d, 1, 2, 3, 0, 0x15, 0x5d, 4, 5, 6, 0x86, 0xdd}, ip6...)
	out, n, err = Clear(pcapOf(f6))
	if err != nil {
		t.Fatal(err)
	}
	got := out[len(out)-len(t6):]
	if n != int64(len(secret)) || bytes.Contains(out, []byte("Pcap7")) {
		t.Errorf("IPv6: cleared %d", n)
	}
	if v := Fold(uint64(OnesSum(ph)) + uint64(OnesSum(got))); v != 0xffff {
		t.Errorf("IPv6 TCP checksum no longer right: %#x", v)
	}
}

// pcapngOf writes one section, one Ethernet interface, frames as EPBs.
func pcapngOf(frames ...[]byte) []byte {
	le := binary.LittleEndian
	block := func(typ uint32, body []byte) []byte {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		b := make([]byte, 8, 12+len(body))
		le.PutUint32(b, typ)
		le.PutUint32(b[4:], uint32(12+len(body)))
		b = append(b, body...)
		return le.AppendUint32(b, uint32(12+len(body)))
	}
	shb := []byte{0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	out := block(0x0a0d0d0a, shb)
	out = append(out, block(1, []byte{1, 0, 0, 0, 0, 0, 0, 0})...)
	for _, f := range frames {
		body := make([]byte, 20)
		le.PutUint32(body[12:], uint32(len(f)))
		le.PutUint32(body[16:], uint32(len(f)))
		out = append(out, block(6, append(body, f...))...)
	}
	return out
}

func TestClearPcapngAndGzip(t *testing.T) {
	ng := pcapngOf(frame(ipv4(6, tcpSeg(51234, 6443, secret))))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(pcapOf(frame(ipv4(6, tcpSeg(51234, 6443, secret)))))
	zw.Close()
	for name, data := range map[string][]byte{"pcapng": ng, "gzip": gz.Bytes()} {
		out, n, err := Clear(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			out, _ = io.ReadAll(zr)
		}
		if n != int64(len(secret)) || bytes.Contains(out, []byte("Pcap7")) {
			t.Errorf("%s: cleared %d", name, n)
		}
	}
	// A VXLAN port given: the inner frame is walked into, not cleared whole.
	vx := udpSeg(49152, 9999, append([]byte{0x08, 0, 0, 0, 0, 0x10, 0, 0}, frame(ipv4(6, tcpSeg(1, 2, secret)))...), true)
	if _, n, _ := Clear(pcapOf(frame(ipv4(17, vx))), 9999); n != int64(len(secret)) {
		t.Errorf("VXLAN on a given port: cleared %d, want the inner payload's %d", n, len(secret))
	}
	if _, _, err := Clear(ng[:len(ng)-3]); err == nil {
		t.Error("a pcapng cut inside a block: no error")
	}
}

// FuzzClear: any input is cleared or refused, never a panic, and a cleared
// capture cleared again is the same.
func FuzzClear(f *testing.F) {
	f.Add(pcapOf(frame(ipv4(6, tcpSeg(51234, 6443, secret)))))
	f.Add(pcapngOf(frame(ipv4(17, udpSeg(49152, 4789, append([]byte{0x08, 0, 0, 0, 0, 0x10, 0, 0}, frame(ipv4(6, tcpSeg(1, 2, secret)))...), true)))))
	f.Add([]byte{0xd4, 0xc3, 0xb2, 0xa1})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := Clear(append([]byte(nil), data...))
		if err != nil {
			return
		}
		again, _, err := Clear(append([]byte(nil), out...))
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("clearing twice differs (%v)", err)
		}
	})
}
