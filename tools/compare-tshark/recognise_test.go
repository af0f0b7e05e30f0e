package main

import (
	"strings"
	"testing"
)

// verdicts adds tshark's lines to a result and compares it with diag's
// figures: the rows by figure.
func verdicts(t *testing.T, lines []map[string]string, diag *figures) (*tsharkResult, map[string]string) {
	t.Helper()
	res := &tsharkResult{raw: newFigures(), adj: newFigures(), why: map[string]bool{}}
	ports := map[string]bool{"4789": true}
	for _, l := range lines {
		res.add(line(l), ports)
	}
	out := map[string]string{}
	for _, r := range compare(res, diag) {
		out[r.figure] = r.agree
	}
	return res, out
}

func diagFigures(vxlan, geneve, flows, bad int64, vnis, pairs []string) *figures {
	d := newFigures()
	d.vxlan, d.geneve, d.nflow, d.bad = vxlan, geneve, flows, bad
	for _, v := range vnis {
		d.vnis[v] = true
	}
	for _, p := range pairs {
		d.pairs[p] = true
	}
	return d
}

// A VXLAN packet tshark reassembled from outer fragments, its inner TCP
// checksum bad over the whole packet: diag reads the first fragment (no
// verdict, a flow only if its headers are there). Over IPv6 (a fragment
// header) and IPv4 (the completing frame's fragment offset).
func TestOuterFragmentsDeliberate(t *testing.T) {
	v6 := map[string]string{
		"frame.number": "2", "frame.protocols": "eth:ethertype:ipv6:ipv6.fraghdr:udp:vxlan:eth:ethertype:ip:tcp",
		"ipv6.src": "fd00::1", "ipv6.dst": "fd00::2", "ip.src": "10.244.1.5", "ip.dst": "10.244.2.5", "ip.proto": "6",
		"ip.checksum.status": "1", "ip.frag_offset": "0",
		"udp.srcport": "50000", "udp.dstport": "4789", "udp.length": "81",
		"tcp.srcport": "40000", "tcp.dstport": "80", "tcp.checksum.status": "0", "tcp.checksum": "0x1234", "tcp.len": "0", "tcp.hdr_len": "20",
		"vxlan.flags": "0x0800", "vxlan.vni": "4000",
	}
	v4 := map[string]string{}
	for k, v := range v6 {
		v4[k] = v
	}
	v4["frame.protocols"] = "eth:ethertype:ip:udp:vxlan:eth:ethertype:ip:tcp"
	v4["ip.src"], v4["ip.dst"] = "192.168.0.1,10.244.1.5", "192.168.0.2,10.244.2.5"
	v4["ip.proto"], v4["ip.checksum.status"], v4["ip.frag_offset"] = "17,6", "1,1", "1480,0"
	for name, l := range map[string]map[string]string{"IPv6": v6, "IPv4": v4} {
		pair := "fd00::1 > fd00::2"
		if name == "IPv4" {
			pair = "192.168.0.1 > 192.168.0.2"
		}
		for _, flows := range []int64{0, 1} {
			res, v := verdicts(t, []map[string]string{l}, diagFigures(1, 0, flows, 0, []string{"4000"}, []string{pair}))
			if !res.why["outer-fragments"] || v["bad checksums"] != "deliberate (outer-fragments)" || v["vxlan packets"] != "yes" {
				t.Errorf("%s, diag %d flows: %v %v; want bad checksums deliberate (outer-fragments)", name, flows, v, res.why)
			}
			if want := map[int64]string{0: "deliberate (outer-fragments)", 1: "yes"}[flows]; v["inner flows"] != want {
				t.Errorf("%s, diag %d flows: inner flows %s, want %s", name, flows, v["inner flows"], want)
			}
		}
		// More flows than reassembled packets is no fragment's doing.
		if _, v := verdicts(t, []map[string]string{l}, diagFigures(1, 0, 2, 0, []string{"4000"}, []string{pair})); v["inner flows"] != "NO" {
			t.Errorf("%s, diag 2 flows: inner flows %s, want NO", name, v["inner flows"])
		}
	}
	// A whole (unfragmented) packet keeps its checksum verdict.
	whole := map[string]string{}
	for k, val := range v4 {
		whole[k] = val
	}
	whole["ip.frag_offset"] = "0,0"
	if res, v := verdicts(t, []map[string]string{whole}, diagFigures(1, 0, 1, 0, []string{"4000"}, []string{"192.168.0.1 > 192.168.0.2"})); res.why["outer-fragments"] || v["bad checksums"] != "NO" {
		t.Errorf("unfragmented: %v %v; want bad checksums NO", v, res.why)
	}
}

// A datagram from 4789 to 6081: tshark decodes VXLAN by the lower port,
// diag Geneve by the destination port.
func TestPortOrderTunnelForTunnel(t *testing.T) {
	l := map[string]string{
		"frame.number": "1", "frame.protocols": "eth:ethertype:ip:udp:vxlan:eth:ethertype:ip:tcp",
		"ip.src": "10.0.0.1,10.244.1.5", "ip.dst": "10.0.0.2,10.244.2.5", "ip.proto": "17,6", "ip.checksum.status": "1,1", "ip.frag_offset": "0,0",
		"udp.srcport": "4789", "udp.dstport": "6081", "udp.length": "81",
		"tcp.srcport": "40000", "tcp.dstport": "80", "tcp.checksum.status": "1",
		"vxlan.flags": "0x0800", "vxlan.vni": "7002",
	}
	res, v := verdicts(t, []map[string]string{l}, diagFigures(0, 1, 0, 0, nil, nil))
	for _, fig := range []string{"vxlan packets", "VNIs", "VTEP pairs", "inner flows", "geneve packets"} {
		if v[fig] != "deliberate (udp-port-order)" {
			t.Errorf("%s: %s, want deliberate (udp-port-order) (%v)", fig, v[fig], res.why)
		}
	}
	// From an ephemeral port to 4789 both decode VXLAN: diag's Geneve would be a
	// difference of its own.
	l["udp.srcport"], l["udp.dstport"] = "50000", "4789"
	if res, v := verdicts(t, []map[string]string{l}, diagFigures(0, 1, 0, 0, nil, nil)); v["geneve packets"] != "NO" || len(res.why) != 0 {
		t.Errorf("50000 to 4789: geneve packets %s (%v), want NO", v["geneve packets"], res.why)
	}
}

// MPLS inside VXLAN: tshark follows the label stack to the inner packet,
// diag counts the VXLAN packet only. IP in IP carrying VXLAN: diag sees
// no tunnel.
func TestOtherEncapsulations(t *testing.T) {
	mpls := map[string]string{
		"frame.number": "1", "frame.protocols": "eth:ethertype:ip:udp:vxlan:eth:ethertype:mpls:ip:tcp",
		"ip.src": "10.0.0.1,10.244.1.5", "ip.dst": "10.0.0.2,10.244.2.5", "ip.proto": "17,6", "ip.checksum.status": "1,1", "ip.frag_offset": "0,0",
		"udp.srcport": "50000", "udp.dstport": "4789", "udp.length": "75",
		"tcp.srcport": "40000", "tcp.dstport": "80", "tcp.checksum.status": "0",
		"vxlan.flags": "0x0800", "vxlan.vni": "7001",
	}
	ipip := map[string]string{
		"frame.number": "2", "frame.protocols": "eth:ethertype:ip:ip:udp:vxlan:eth:ethertype:ip:tcp",
		"ip.src": "10.0.0.1,10.3.0.1,10.244.1.5", "ip.dst": "10.0.0.2,10.3.0.2,10.244.2.5", "ip.proto": "4,17,6",
		"ip.checksum.status": "1,1,1", "ip.frag_offset": "0,0,0",
		"udp.srcport": "50000", "udp.dstport": "4789", "udp.length": "81",
		"tcp.srcport": "40000", "tcp.dstport": "81", "tcp.checksum.status": "1",
		"vxlan.flags": "0x0800", "vxlan.vni": "7003",
	}
	res, v := verdicts(t, []map[string]string{mpls, ipip}, diagFigures(1, 0, 0, 0, []string{"7001"}, []string{"10.0.0.1 > 10.0.0.2"}))
	for _, fig := range []string{"vxlan packets", "VNIs", "VTEP pairs", "inner flows", "bad checksums"} {
		if v[fig] != "deliberate (other-encapsulation)" {
			t.Errorf("%s: %s, want deliberate (other-encapsulation) (%v)", fig, v[fig], res.why)
		}
	}
	// MPLS outside any tunnel, and IP in IP without one, are no difference.
	plain := map[string]string{"frame.number": "1", "frame.protocols": "eth:ethertype:mpls:ip:ip:tcp", "ip.src": "10.0.0.1,10.1.0.1", "ip.dst": "10.0.0.2,10.1.0.2"}
	if res, _ := verdicts(t, []map[string]string{plain}, newFigures()); len(res.why) != 0 {
		t.Errorf("no tunnel: differences %v, want none", res.why)
	}
}

// tshark's field lines are outside input: any line is counted and
// compared without a panic.
func FuzzAdd(f *testing.F) {
	f.Add("1\teth:ethertype:ip:udp:vxlan\t10.0.0.1\t10.0.0.2\t35\t17\t\t0\t\t\t\t50000\t4789\t15")
	f.Add("2\teth:ethertype:ipv6:ipv6.fraghdr:udp:vxlan:eth:ethertype:ip:tcp\t10.244.1.5\t10.244.2.5")
	f.Add("3\teth:ethertype:ip:ip:udp:vxlan:eth:ethertype:mpls:ip:tcp\t,,\t\t\t\t\t,")
	f.Add("4\tudp:vxlan:geneve:icmp:ip:gre:vxlan\t\t\t\t\t\t\t\t\t\t4789\t6081")
	f.Fuzz(func(t *testing.T, s string) {
		res := &tsharkResult{raw: newFigures(), adj: newFigures(), why: map[string]bool{}, diagLast: 2}
		res.add(strings.Split(s, "\t"), map[string]bool{"4789": true, "8472": true})
		if rows := compare(res, newFigures()); len(rows) != 6 {
			t.Fatalf("%d rows", len(rows))
		}
	})
}
