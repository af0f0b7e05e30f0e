package capture

import (
	"encoding/binary"
	"testing"
)

// The inner UDP checksum covers the datagram as its UDP length gives it
// (RFC 768), which may differ from the IP payload. tshark 4.0 verifies
// over the UDP length when it is shorter than the IP payload, and gives
// no verdict ("Bad length value") when it is longer.

// withIPTrailer adds n bytes after the UDP datagram of an inner IPv4
// Ethernet frame, inside the IP packet (the IP total length grows, the
// UDP length does not), and refreshes the IPv4 header checksum.
func withIPTrailer(frame []byte, n int) []byte {
	out := append(append([]byte(nil), frame...), make([]byte, n)...)
	for i := len(frame); i < len(out); i++ {
		out[i] = 0xa5
	}
	hdr := out[14 : 14+20]
	binary.BigEndian.PutUint16(hdr[2:], binary.BigEndian.Uint16(hdr[2:])+uint16(n))
	hdr[10], hdr[11] = 0, 0
	binary.BigEndian.PutUint16(hdr[10:], onesSum(hdr, 0))
	return out
}

// A UDP datagram shorter than its IP payload: its checksum, right over
// the UDP length, is good; a corrupt byte inside the UDP length is CAP-06,
// on the fast path (untagged) and the general one (VLAN-tagged) alike.
func TestInnerUDPShorterThanIPPayload(t *testing.T) {
	good := withIPTrailer(innerUDP(podA, podB, 5000, 53, 9, fill(20)), 8)
	bad := append([]byte(nil), good...)
	bad[14+20+8+3] ^= 0xff // a byte of the UDP payload
	for _, tagged := range []bool{false, true} {
		for i, in := range [][]byte{good, bad} {
			f := encap(vtepA, vtepB, 4789, 1, in)
			if tagged {
				f = udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x08, 1, 0), in...), 0x8100)
			}
			r := run(Options{}, pkt{data: f})
			if r.VXLANPackets != 1 || hasID(r, "CAP-06") != (i == 1) {
				t.Errorf("VLAN %v, corrupt %v: %d VXLAN, findings %v; want CAP-06 only for the corrupt datagram",
					tagged, i == 1, r.VXLANPackets, ids(r))
			}
		}
	}
}

// A UDP length beyond the IP payload is a length error, not a checksum
// error: the checksum cannot be verified over bytes that are not there.
func TestInnerUDPLongerThanIPPayload(t *testing.T) {
	in := innerUDP(podA, podB, 5000, 53, 9, fill(4))
	u := in[14+20:]
	binary.BigEndian.PutUint16(u[4:], 40) // 12 bytes in the IP packet
	u[6], u[7] = 0, 0
	binary.BigEndian.PutUint16(u[6:], onesSum(u, pseudoHeader(in, 14, false, 17, 40)))
	r := run(Options{}, pkt{data: encap(vtepA, vtepB, 4789, 1, in)})
	if r.VXLANPackets != 1 || hasID(r, "CAP-06") {
		t.Errorf("UDP length 40 in a 12-byte IP payload: %d VXLAN, findings %v; want no CAP-06", r.VXLANPackets, ids(r))
	}
}

// A UDP length beyond the IP payload, or under the 8-byte header, is
// counted as a malformed inner packet (CAP-08, the UDP header named),
// on both paths; one within the IP payload is not.
func TestInnerUDPLengthMalformed(t *testing.T) {
	for _, c := range []struct {
		ul  uint16
		bad bool
	}{{40, true}, {4, true}, {0, true}, {12, false}, {8, false}} {
		in := innerUDP(podA, podB, 5000, 53, 9, fill(4)) // 12 bytes of UDP
		u := in[14+20:]
		binary.BigEndian.PutUint16(u[4:], c.ul)
		u[6], u[7] = 0, 0 // no checksum: only the length is judged
		for _, tagged := range []bool{false, true} {
			f := encap(vtepA, vtepB, 4789, 1, in)
			if tagged {
				f = udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x08, 1, 0), in...), 0x8100)
			}
			r := run(Options{}, pkt{data: f})
			var field string
			for _, fd := range r.Findings {
				if fd.ID == "CAP-08" && len(fd.Evidence) > 0 {
					field = fd.Evidence[0].Field
				}
			}
			if r.VXLANPackets != 1 || hasID(r, "CAP-06") || (field == "inner UDP header") != c.bad || !c.bad && hasID(r, "CAP-08") {
				t.Errorf("UDP length %d in a 12-byte IP payload, VLAN %v: %d VXLAN, findings %v (CAP-08 on %q); want CAP-08 on the UDP header: %v",
					c.ul, tagged, r.VXLANPackets, ids(r), field, c.bad)
			}
		}
	}
}
