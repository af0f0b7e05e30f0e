package payload

import (
	"bytes"
	"testing"
)

// Tunnels whose inner frames Wireshark shows though the walk does not go
// into them: VXLAN with the I flag clear (Wireshark decodes the inner
// frame whatever the flags) and NSH over VXLAN-GPE (next protocol 4, as in
// tcpdump's nsh-over-vxlan-gpe.pcap). The inner segment's payload is
// application data like any other and is cleared.
func TestClearInsideVXLANFlagsClearAndNSH(t *testing.T) {
	inner := frame(ipv4(6, tcpSeg(51234, 6443, secret)))
	// NSH: version 0, length 2 words (MD type 2, no metadata), next
	// protocol 3 (Ethernet); service path 1, index 255.
	nsh := []byte{0x0f, 0xc2, 0x02, 0x03, 0, 0, 1, 0xff}
	for name, outer := range map[string][]byte{
		"VXLAN, I flag clear": udpSeg(49152, 4789, append([]byte{0, 0, 0, 0, 0, 0x10, 0, 0}, inner...), true),
		"NSH over VXLAN-GPE":  udpSeg(49152, 4790, append(append([]byte{0x0c, 0, 0, 4, 0, 0, 1, 0}, nsh...), inner...), true),
	} {
		out, n, err := Clear(pcapOf(frame(ipv4(17, outer))))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out, []byte("Pcap7")) {
			t.Errorf("%s: the inner payload is left (%d bytes cleared)", name, n)
			continue
		}
		if v := verify(srcIP, dstIP, 17, out[24+16+14+20:]); v != 0xffff {
			t.Errorf("%s: outer UDP checksum no longer right: %#x", name, v)
		}
	}
}
