package capture

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/gen"
	"github.com/wincni/diag/snapshot"
)

// The seed cluster after the fix: Linux VTEP 10.20.30.10 (vxlan.calico MAC
// 66:a5:cc:c1:86:97), Windows VTEP 10.20.30.11 (DR MAC 00:15:5d:b9:70:84).
const (
	linuxVTEP, winVTEP = "10.20.30.10", "10.20.30.11"
	linuxPod, winPod   = "100.244.49.69", "100.244.206.67"
	linuxMAC, winMAC   = "66:a5:cc:c1:86:97", "00:15:5d:b9:70:84"
)

func seedContext(t testing.TB) *Context {
	var snaps []*snapshot.Snapshot
	for _, name := range []string{"seed-fixed", "seed-linux-controlplane"} {
		snaps = append(snaps, formatstest.Load(t, filepath.Join("..", "testdata", "bundles", name)))
	}
	return ContextFromSnapshots(snaps...)
}

func healthy() []gen.Pkt {
	return gen.Handshake(0, linuxVTEP, winVTEP, linuxPod, winPod, 44836, 80, 4096, linuxMAC, winMAC)
}

func with(base []gen.Pkt, extra ...gen.Pkt) []gen.Pkt {
	return append(append([]gen.Pkt{}, base...), extra...)
}

func fwd(at time.Duration) gen.Pkt {
	return gen.Pkt{At: at, OuterSrc: linuxVTEP, OuterDst: winVTEP, VNI: 4096, InnerDstMAC: winMAC, InnerSrc: linuxPod, InnerDst: winPod,
		Sport: 44900, Dport: 443, TCPFlags: "A", Seq: 9, IPID: 77}
}

// Each generated capture has one fault; its finding must fire, and no
// other finding may.
var faultScenarios = []struct {
	name string
	pkts func() []gen.Pkt
	want string // the one rule that must fire; "" for none
}{
	{"healthy", healthy, ""},
	{"cap01-unencapsulated", func() []gen.Pkt {
		p := fwd(20 * time.Millisecond)
		p.Plain = true
		return with(healthy(), p)
	}, "CAP-01"},
	{"cap02-syn-unanswered", func() []gen.Pkt {
		var out []gen.Pkt
		for i, at := range []time.Duration{0, time.Second, 3 * time.Second} {
			p := fwd(at)
			p.OuterDst, p.InnerDst, p.Sport, p.Dport, p.TCPFlags, p.IPID = winVTEP, "100.244.206.68", 54398, 80, "S", uint16(100+i)
			out = append(out, p)
		}
		return with(healthy(), out...)
	}, "CAP-02"},
	{"cap03-wrong-vni", func() []gen.Pkt {
		return gen.Handshake(0, linuxVTEP, winVTEP, linuxPod, winPod, 44836, 80, 1, linuxMAC, winMAC)
	}, "CAP-03"},
	{"cap04-unknown-vtep", func() []gen.Pkt {
		return with(healthy(), gen.Handshake(time.Second, linuxVTEP, "10.20.30.99", linuxPod, "100.244.99.5", 44837, 80, 4096, linuxMAC, "0e:2a:64:f4:63:05")...)
	}, "CAP-04"},
	{"cap05-outer-fragment", func() []gen.Pkt {
		p := fwd(20 * time.Millisecond)
		p.FirstFragment, p.Payload = true, 1400
		return with(healthy(), p)
	}, "CAP-05"},
	{"cap06-bad-checksum", func() []gen.Pkt {
		p := fwd(20 * time.Millisecond)
		p.BadChecksum, p.Payload = true, 300
		return with(healthy(), p)
	}, "CAP-06"},
	{"cap07-stale-dr-mac", func() []gen.Pkt {
		return gen.Handshake(0, linuxVTEP, winVTEP, linuxPod, winPod, 44836, 80, 4096, linuxMAC, "00:15:5d:64:51:0e")
	}, "CAP-07"},
	{"cap08-malformed", func() []gen.Pkt {
		a, b := fwd(20*time.Millisecond), fwd(21*time.Millisecond)
		a.NoIFlag, b.ShortVXLAN = true, true
		return with(healthy(), a, b)
	}, "CAP-08"},
	{"cap09-reset", func() []gen.Pkt {
		p := fwd(20 * time.Millisecond)
		p.Sport, p.Dport, p.TCPFlags = 44836, 80, "R"
		return with(healthy(), p)
	}, "CAP-09"},
	{"nat04-ping-external", func() []gen.Pkt {
		var out []gen.Pkt
		for i := range 3 {
			p := fwd(time.Duration(20+i) * time.Millisecond)
			p.Plain, p.InnerSrc, p.InnerDst, p.Proto, p.ICMPType, p.Payload, p.IPID = true, winPod, "8.8.8.8", "icmp", 8, 32, uint16(300+i)
			out = append(out, p)
		}
		return with(healthy(), out...)
	}, "NAT-04"},
	{"cap09-frag-needed", func() []gen.Pkt {
		p := fwd(20 * time.Millisecond)
		p.Proto, p.ICMPType, p.ICMPCode, p.Payload = "icmp", 3, 4, 28
		return with(healthy(), p)
	}, "CAP-09"},
}

func analyze(t *testing.T, path string, ctx *Context) *Report {
	t.Helper()
	a := NewAnalyzer(Options{Context: ctx})
	if err := a.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	return a.Finish("test")
}

func ids(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.ID)
	}
	sort.Strings(out)
	return out
}

func TestFaultScenarios(t *testing.T) {
	ctx := seedContext(t)
	dir := t.TempDir()
	for _, sc := range faultScenarios {
		t.Run(sc.name, func(t *testing.T) {
			path := filepath.Join(dir, sc.name+".pcap")
			if err := gen.WritePcap(path, sc.pkts()); err != nil {
				t.Fatal(err)
			}
			r := analyze(t, path, ctx)
			got := ids(r)
			switch {
			case sc.want == "" && len(got) > 0:
				t.Errorf("findings on a healthy capture: %v", summaries(r))
			case sc.want != "" && (len(got) == 0 || got[0] != sc.want || got[len(got)-1] != sc.want):
				t.Errorf("want only %s, got %v: %v", sc.want, got, summaries(r))
			}
			if len(r.Skipped) != 0 {
				t.Errorf("rules skipped with a bundle context: %+v", r.Skipped)
			}
		})
	}
}

func summaries(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.ID+" "+f.Summary)
	}
	return out
}

// The seed's symptom, as the Linux node's capture would show it: SYNs from
// 100.244.49.69 to 100.244.206.68 sent to the NAT address 10.0.2.15.
func TestSeedSymptom(t *testing.T) {
	var pkts []gen.Pkt
	for i, at := range []time.Duration{0, 1008 * time.Millisecond, 3 * time.Second} {
		pkts = append(pkts, gen.Pkt{At: at, OuterSrc: linuxVTEP, OuterDst: "10.0.2.15", VNI: 4096, InnerDstMAC: "00:15:5d:64:51:0e",
			InnerSrc: linuxPod, InnerDst: "100.244.206.68", Sport: 54398, Dport: 80, TCPFlags: "S", IPID: uint16(7 + i)})
	}
	path := filepath.Join(t.TempDir(), "seed.pcap")
	gen.WritePcap(path, pkts)
	r := analyze(t, path, nil)
	if len(r.Findings) != 1 || r.Findings[0].ID != "CAP-02" {
		t.Fatalf("%v", summaries(r))
	}
	s := r.Findings[0].Summary
	for _, want := range []string{"100.244.49.69:54398", "100.244.206.68:80", "10.20.30.10 → 10.0.2.15", "sent 3 times"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q: %s", want, s)
		}
	}
	// Without a bundle the context rules say why they did not run.
	if len(r.Skipped) != 3 || r.Skipped[0].ID != "CAP-03" || r.Skipped[1].ID != "CAP-04" || r.Skipped[2].ID != "CAP-07" {
		t.Errorf("skipped: %+v", r.Skipped)
	}
}

// pktmon logs every packet at each component it crosses: copies must not
// look like retransmissions, with packet ids (etl2pcapng) or without.
func TestPktmonCopiesAreNotRetransmissions(t *testing.T) {
	var dup []gen.Pkt
	for i, p := range healthy() {
		p.PacketID = uint64(1000 + i)
		dup = append(dup, p, p, p)
	}
	dir := t.TempDir()
	ng := filepath.Join(dir, "pktmon.pcapng")
	if err := gen.WritePcapng(ng, dup, 0); err != nil {
		t.Fatal(err)
	}
	r := analyze(t, ng, seedContext(t))
	if len(r.Findings) != 0 || r.Duplicates != int64(2*len(healthy())) {
		t.Errorf("with packet ids: duplicates %d, %v", r.Duplicates, summaries(r))
	}
	for i := range dup {
		dup[i].PacketID = 0
	}
	pc := filepath.Join(dir, "copies.pcap")
	gen.WritePcap(pc, dup)
	if r := analyze(t, pc, seedContext(t)); len(r.Findings) != 0 {
		t.Errorf("without packet ids: %v", summaries(r))
	}
}

// pktmon's default keeps 128 bytes: truncated packets are counted and the
// advice given, and nothing is reported as malformed or corrupt.
func TestTruncatedCapture(t *testing.T) {
	pkts := with(healthy(), fwd(20*time.Millisecond))
	pkts[len(pkts)-1].Payload = 1200
	path := filepath.Join(t.TempDir(), "snap128.pcapng")
	if err := gen.WritePcapng(path, pkts, 128); err != nil {
		t.Fatal(err)
	}
	r := analyze(t, path, seedContext(t))
	if r.Truncated == 0 || len(r.Findings) != 0 {
		t.Errorf("truncated %d, findings %v", r.Truncated, summaries(r))
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "--pkt-size 0") {
		t.Errorf("no advice: %v", r.Notes)
	}
}
