package capture

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigVXLAN is a VXLAN packet from one VTEP to another with a full-size
// inner segment: 1500 bytes of pod packet, 1550 on the underlay.
func bigVXLAN(src, dst string, vni uint32) []byte {
	return encap(src, dst, 4789, vni, innerTCP(podA, podB, tcpSeg{sport: 40400, dport: 443, flags: "A", seq: 1, id: 400, payload: 1500 - 40}))
}

// CAP-10 fires on an underlay router's "fragmentation needed" (IPv4) or
// "packet too big" (IPv6) about a tunnel packet, with the MTU announced
// and the VTEP pair, and stays silent on the same errors about other
// traffic, on other ICMP errors about tunnel packets, and on errors
// carried inside the tunnel (CAP-09's).
func TestUnderlayTooBig(t *testing.T) {
	ctx := seedContext(t)
	wire := func(frames ...[]byte) []pkt {
		var out []pkt
		for _, p := range healthy() {
			out = append(out, pkt{data: p.Bytes(), at: p.At})
		}
		for i, f := range frames {
			out = append(out, pkt{data: f, at: time.Duration(100+i) * time.Millisecond})
		}
		return out
	}
	v4 := bigVXLAN(linuxVTEP, winVTEP, 4096)
	geneve6 := udpFrame(o6a, o6b, 49152, 6081, geneveProto(4096, 0x6558, innerTCP(podA, podB, tcpSeg{sport: 40401, dport: 443, flags: "A", seq: 1, id: 401, payload: 1400})))
	plainBig := innerTCP(linuxVTEP, winVTEP, tcpSeg{sport: 40402, dport: 443, flags: "A", seq: 1, id: 402, payload: 1460})
	unreach := tooBig("10.20.30.1", 1400, v4)
	unreach[14+20+1] = 1 // host unreachable, not fragmentation needed
	fixICMP(unreach)
	inside := encap(linuxVTEP, winVTEP, 4789, 4096, innerICMPError(podB, podA, innerUDP(podA, podB, 5006, 53, 24, fill(1400))))

	fires := []struct {
		name  string
		frame []byte
		mtu   string
		want  []string
	}{
		{"IPv4 fragmentation needed", tooBig("10.20.30.1", 1400, v4), "1400",
			[]string{"10.20.30.1", "VTEP 10.20.30.10 to 10.20.30.11", "path MTU 1400", "at most 1350", "VXLAN"}},
		{"ICMPv6 packet too big about Geneve", tooBig("2001:db8::fe", 1420, geneve6), "1420",
			[]string{"2001:db8::fe", "VTEP 2001:db8::1 to 2001:db8::2", "path MTU 1420", "at most 1350", "Geneve", "packet too big"}},
	}
	for _, c := range fires {
		r := runCtx(ctx, wire(c.frame)...)
		got := ids(r)
		if len(got) != 1 || got[0] != "CAP-10" {
			t.Errorf("%s: findings %v", c.name, summaries(r))
			continue
		}
		f := r.Findings[0]
		for _, w := range c.want {
			if !strings.Contains(f.Summary, w) {
				t.Errorf("%s: summary lacks %q: %s", c.name, w, f.Summary)
			}
		}
		if len(f.Evidence) != 1 || f.Evidence[0].Value != c.mtu {
			t.Errorf("%s: evidence %+v", c.name, f.Evidence)
		}
	}
	// The quoted VNI and the largest packet refused are in the evidence.
	r := runCtx(ctx, wire(tooBig("10.20.30.1", 1400, v4), tooBig("10.20.30.1", 1400, v4))...)
	if len(r.Findings) != 1 || !strings.Contains(r.Findings[0].Evidence[0].Note, "2 ICMP errors from 10.20.30.1; VNI 4096") ||
		!strings.Contains(r.Findings[0].Evidence[0].Expected, "1550") {
		t.Errorf("evidence: %+v", r.Findings)
	}

	// A router older than RFC 1191 gives no MTU: the drop is reported,
	// without a pod MTU to set.
	r = runCtx(ctx, wire(tooBig("10.20.30.1", 0, v4))...)
	if len(r.Findings) != 1 || r.Findings[0].ID != "CAP-10" || strings.Contains(r.Findings[0].Summary, "at most") ||
		!strings.Contains(r.Findings[0].Evidence[0].Value, "not given") ||
		!strings.Contains(r.Findings[0].Evidence[0].Note, "1 ICMP error from 10.20.30.1") {
		t.Errorf("no MTU given: %v", summaries(r))
	}

	silent := []struct {
		name  string
		frame []byte
	}{
		{"fragmentation needed about plain TCP", tooBig("10.20.30.1", 1400, plainBig)},
		{"host unreachable about VXLAN", unreach},
		{"a quote cut before the UDP header", tooBig("10.20.30.1", 1400, v4)[:14+20+8+20+4]},
	}
	for _, c := range silent {
		if r := runCtx(ctx, wire(c.frame)...); len(r.Findings) != 0 {
			t.Errorf("%s: findings %v", c.name, summaries(r))
		}
	}
	// Fragmentation needed carried in the tunnel is CAP-09's, not CAP-10's.
	if r := runCtx(ctx, wire(inside)...); hasID(r, "CAP-10") || !hasID(r, "CAP-09") {
		t.Errorf("inside the tunnel: %v", summaries(r))
	}
}

func runCtx(ctx *Context, pkts ...pkt) *Report {
	a := NewAnalyzer(Options{Context: ctx})
	for _, p := range pkts {
		a.Add(&Packet{Data: p.data, Length: len(p.data), Time: t0.Add(p.at), LinkType: 1})
	}
	return a.Finish("test")
}

// fixICMP recomputes the ICMPv4 checksum of a frame (Ethernet, IPv4
// without options).
func fixICMP(frame []byte) {
	icmp := frame[14+20:]
	icmp[2], icmp[3] = 0, 0
	c := onesSum(icmp, 0)
	icmp[2], icmp[3] = byte(c>>8), byte(c)
}

// The CAP-10 scenario through a file, as `diag capture decode` reads it:
// it fires with a bundle context and without one.
func TestUnderlayTooBigFile(t *testing.T) {
	var pkts []pkt
	for _, p := range healthy() {
		pkts = append(pkts, pkt{data: p.Bytes(), at: p.At})
	}
	pkts = append(pkts, pkt{data: tooBig("10.20.30.1", 1400, bigVXLAN(linuxVTEP, winVTEP, 4096)), at: time.Second})
	path := filepath.Join(t.TempDir(), "too-big.pcapng")
	if err := writeCorpusFile(path, corpusFile{name: "too-big.pcapng", pkts: pkts}); err != nil {
		t.Fatal(err)
	}
	for _, ctx := range []*Context{nil, seedContext(t)} {
		if r := analyze(t, path, ctx); !hasID(r, "CAP-10") {
			t.Errorf("context %v: %v", ctx != nil, summaries(r))
		}
	}
}

// Past maxTooBig (VTEP pair, MTU) groups the errors are counted in a
// note, worded for their number.
func TestUnderlayTooBigOverflowNote(t *testing.T) {
	v4 := bigVXLAN(linuxVTEP, winVTEP, 4096)
	for _, extra := range []int{1, 2} {
		a := NewAnalyzer(Options{})
		for i := range maxTooBig + extra {
			f := tooBig("10.20.30.1", uint32(576+i), v4)
			a.Add(&Packet{Data: f, Length: len(f), Time: t0.Add(time.Duration(i) * time.Microsecond), LinkType: 1})
		}
		want := map[int]string{1: "1 more ICMP \"fragmentation needed\"/\"packet too big\" error about tunnel packets, past 4096 (VTEP pair, MTU) groups, was counted",
			2: "2 more ICMP \"fragmentation needed\"/\"packet too big\" errors about tunnel packets, past 4096 (VTEP pair, MTU) groups, were counted"}[extra]
		r := a.Finish("test")
		if !strings.Contains(strings.Join(r.Notes, "\n"), want) {
			t.Errorf("%d past the limit: notes %q lack %q", extra, r.Notes, want)
		}
	}
}
