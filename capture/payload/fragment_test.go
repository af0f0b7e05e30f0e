package payload

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// The fragments of a datagram after the first carry its payload too (a
// large UDP message, an HTTP body over a path with a small MTU): the
// clearing clears them whole, as it clears the first fragment's payload,
// and keeps their IP headers.
func TestClearFragmentsAfterTheFirst(t *testing.T) {
	body := append(bytes.Repeat([]byte{'F'}, 64), secret...)
	whole := ipv4(17, udpSeg(7004, 7005, body, true)) // IPv4 + UDP + payload
	seg := whole[20:]
	first, rest := seg[:48], seg[48:] // 48 is a multiple of 8: the second fragment starts at offset 6
	f1, f2 := fragment4(0, true, first), fragment4(6, false, rest)
	out, cleared, err := Clear(pcapOf(f1, f2))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("Bearer")) || bytes.Contains(out, bytes.Repeat([]byte{'F'}, 8)) {
		t.Errorf("the payload of the fragment after the first is left in the capture (%d bytes cleared of %d)", cleared, len(body))
	}
	if cleared != int64(len(body)) {
		t.Errorf("cleared %d bytes, want the datagram's %d", cleared, len(body))
	}
}

// The first fragment's UDP checksum covers the later fragments' data: it
// stays right over the reassembled datagram, whichever fragment comes
// first in the capture.
func TestClearFragmentsKeepsTheDatagramChecksum(t *testing.T) {
	body := append(bytes.Repeat([]byte{'F'}, 63), secret...) // odd: the last word is half
	seg := ipv4(17, udpSeg(7004, 7005, body, true))[20:]
	for _, inOrder := range []bool{true, false} {
		f1, f2 := fragment4(0, true, seg[:48]), fragment4(6, false, seg[48:])
		frames := [][]byte{f1, f2}
		if !inOrder {
			frames = [][]byte{f2, f1}
		}
		out, _, err := Clear(pcapOf(frames...))
		if err != nil {
			t.Fatal(err)
		}
		// The records, in the order written, each 16 bytes of header.
		r1 := out[24+16 : 24+16+len(frames[0])]
		r2 := out[24+16+len(frames[0])+16:]
		if !inOrder {
			r1, r2 = r2, r1
		}
		whole := append(append([]byte(nil), r1[14+20:]...), r2[14+20:]...)
		if v := verify(srcIP, dstIP, 17, whole); v != 0xffff {
			t.Errorf("in order %v: the reassembled datagram's UDP checksum is no longer right (%#x)", inOrder, v)
		}
		if bytes.Contains(whole, []byte("Bearer")) {
			t.Errorf("in order %v: payload left", inOrder)
		}
	}
}

// fragment4 is an Ethernet frame of one IPv4 fragment of a UDP datagram:
// data from its 8-byte offset off, with more fragments after it or not.
func fragment4(off uint16, more bool, data []byte) []byte {
	ip := ipv4(17, data)
	flags := off
	if more {
		flags |= 0x2000
	}
	binary.BigEndian.PutUint16(ip[6:], flags)
	ip[10], ip[11] = 0, 0
	binary.BigEndian.PutUint16(ip[10:], ^uint16(OnesSum(ip[:20])))
	return frame(ip)
}
