package main

import (
	"strings"
	"testing"
)

// line is one line of tshark's fields (in the order of fields) from the
// values given by field name.
func line(vals map[string]string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = vals[f]
	}
	return out
}

// A UDP datagram to 4789 with 7 bytes of payload: tshark 4.0.17 reads the
// VNI (bytes 4-6) and then marks the VXLAN layer malformed (the line is
// tshark's, for such a frame); diag counts the packet as CAP-08's short
// header, not as VXLAN. That is the documented short-header difference,
// whether or not tshark got as far as the VNI.
func TestSevenByteVXLANIsShortHeader(t *testing.T) {
	for _, vni := range []string{"", "1"} { // 3 to 6 bytes: no VNI; 7 bytes: the VNI
		shortVXLAN(t, vni)
	}
}

func shortVXLAN(t *testing.T, vni string) {
	res := &tsharkResult{raw: newFigures(), adj: newFigures(), why: map[string]bool{}}
	ports := map[string]bool{"4789": true}
	res.add(line(map[string]string{
		"frame.number": "3", "frame.protocols": "eth:ethertype:ip:udp:vxlan",
		"ip.src": "10.0.0.1", "ip.dst": "10.0.0.2", "ip.len": "35", "ip.proto": "17",
		"udp.srcport": "50000", "udp.dstport": "4789", "udp.length": "15", "udp.checksum": "0x0cc8", "udp.checksum.status": "1",
		"vxlan.flags": "0x0800", "vxlan.vni": vni,
		"_ws.malformed": "[Malformed Packet: VXLAN],_ws.malformed",
	}), ports)
	diag := newFigures() // diag: no VXLAN packet, CAP-08
	for _, r := range compare(res, diag) {
		if r.agree == "NO" {
			t.Errorf("VNI %q: %s: tshark %s, diag %s: NO; want deliberate (short-header)", vni, r.figure, r.tshark, r.diag)
		}
	}
	if !res.why["short-header"] {
		t.Errorf("VNI %q: differences met: %v; want short-header", vni, strings.Join(keys(res.why), ", "))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
