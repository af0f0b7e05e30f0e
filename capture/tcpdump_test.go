package capture

import (
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wincni/diag/capture/wire"
)

const tcpdumpTests = "../../shared/captures/tcpdump-tests"

// expectedDecode is what tcpdump's .out says of one packet.
type expectedDecode struct {
	vni                uint32
	outerSrc, outerDst netip.Addr
	innerSrc, innerDst netip.Addr // invalid for non-IP inner frames
	innerProto         string     // icmp, tcp, udp, arp
}

var (
	outEntry   = regexp.MustCompile(`(?m)^\s*\d+\s+\d{4}-\d\d-\d\d `)
	outVXLAN   = regexp.MustCompile(`([0-9a-f.:]+)\.\d+ > ([0-9a-f.:]+)\.\d+: VXLAN, flags \[I\] \(0x08\), vni (\d+)`)
	outInnerIP = regexp.MustCompile(`(\S+) > (\S+): (ICMP6|ICMP|Flags|UDP)`)
)

func parseOut(t *testing.T, path string) []expectedDecode {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	starts := outEntry.FindAllStringIndex(text, -1)
	var out []expectedDecode
	for i, st := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		entry := text[st[0]:end]
		m := outVXLAN.FindStringSubmatchIndex(entry)
		if m == nil {
			t.Fatalf("%s: entry %d has no VXLAN line: %q", path, i+1, entry)
		}
		vni, _ := strconv.Atoi(entry[m[6]:m[7]])
		e := expectedDecode{vni: uint32(vni), outerSrc: netip.MustParseAddr(entry[m[2]:m[3]]), outerDst: netip.MustParseAddr(entry[m[4]:m[5]])}
		rest := entry[m[1]:]
		switch {
		case strings.Contains(rest, "ethertype ARP"):
			e.innerProto = "arp"
		default:
			im := outInnerIP.FindStringSubmatch(rest)
			if im == nil {
				t.Fatalf("%s: entry %d: no inner IP line in %q", path, i+1, rest)
			}
			e.innerSrc, e.innerDst = hostOf(t, im[1]), hostOf(t, im[2])
			e.innerProto = map[string]string{"ICMP": "icmp", "ICMP6": "icmp", "Flags": "tcp", "UDP": "udp"}[im[3]]
		}
		out = append(out, e)
	}
	return out
}

// TestAgreesWithTcpdump decodes every packet of the tcpdump test captures
// that come with an expected decode and compares VNI, outer and inner
// addresses and the inner protocol.
func TestAgreesWithTcpdump(t *testing.T) {
	if _, err := os.Stat(tcpdumpTests); os.IsNotExist(err) {
		t.Skipf("no %s beside the project (a plain clone has none): tcpdump's captures not compared", tcpdumpTests)
	}
	outs, _ := filepath.Glob(filepath.Join(tcpdumpTests, "*.out"))
	if len(outs) == 0 {
		t.Fatalf("no .out files under %s", tcpdumpTests)
	}
	var ports wire.Ports
	ports.Add(4789)
	ports.Add(8472)
	for _, out := range outs {
		name := strings.TrimSuffix(filepath.Base(out), ".out")
		t.Run(name, func(t *testing.T) {
			want := parseOut(t, out)
			src, err := Open(filepath.Join(tcpdumpTests, name+".pcap"))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var p Packet
			var f frame
			for i := 0; ; i++ {
				err := src.Next(&p)
				if errors.Is(err, io.EOF) {
					if i != len(want) {
						t.Errorf("%d packets, tcpdump saw %d", i, len(want))
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if i >= len(want) {
					t.Fatalf("more packets than tcpdump saw")
				}
				decode(&f, p.Data, p.Length, p.LinkType, &ports)
				w := want[i]
				if f.kind != kindVXLAN || f.vni != w.vni || addrOf(f.src) != w.outerSrc || addrOf(f.dst) != w.outerDst {
					t.Errorf("packet %d: kind %d VNI %d %s > %s; tcpdump: VNI %d %s > %s", i+1, f.kind, f.vni, addrOf(f.src), addrOf(f.dst), w.vni, w.outerSrc, w.outerDst)
				}
				if w.innerProto == "arp" {
					if f.innerIP || !f.inner {
						t.Errorf("packet %d: inner ARP decoded as IP", i+1)
					}
					continue
				}
				if !f.innerIP || addrOf(f.innerSrc) != w.innerSrc || addrOf(f.innerDst) != w.innerDst || protoNames[f.innerProto] != w.innerProto && !(w.innerProto == "icmp" && f.innerProto == 58) {
					t.Errorf("packet %d: inner %s > %s proto %d; tcpdump: %s > %s %s", i+1, addrOf(f.innerSrc), addrOf(f.innerDst), f.innerProto, w.innerSrc, w.innerDst, w.innerProto)
				}
			}
		})
	}
}

// None of the public captures raises a finding: GSO and BIG TCP
// super-packets are offload artefacts, Geneve and VXLAN-GPE are not VXLAN.
func TestNoFalseFindingsOnPublicCaptures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(tcpdumpTests, "*.pcap"))
	for _, f := range files {
		a := NewAnalyzer(Options{VXLANPorts: []uint16{4789, 8472}, ExpectedVNI: 0, MTU: 1500})
		if err := a.ReadFile(f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		r := a.Finish("x")
		if len(r.Findings) != 0 {
			t.Errorf("%s: %v", filepath.Base(f), summaries(r))
		}
		switch base := filepath.Base(f); {
		case base == "geneve.pcap" && (r.Geneve == 0 || r.VXLANPackets != 0):
			t.Errorf("geneve: %d geneve, %d vxlan", r.Geneve, r.VXLANPackets)
		case base == "nsh-over-vxlan-gpe.pcap" && (r.GPE == 0 || r.VXLANPackets != 0):
			t.Errorf("gpe: %d gpe, %d vxlan", r.GPE, r.VXLANPackets)
		}
	}
	// Flannel's Linux port is VXLAN only when asked for.
	a := NewAnalyzer(Options{})
	a.ReadFile(filepath.Join(tcpdumpTests, "vxlan_port_8472.pcap"))
	if r := a.Finish("x"); r.VXLANPackets != 0 {
		t.Errorf("8472 decoded as VXLAN without --vxlan-port")
	}
}

// hostOf drops tcpdump's ".port" suffix from "addr.port" (or takes "addr").
func hostOf(t *testing.T, s string) netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil {
		return a
	}
	if i := strings.LastIndexByte(s, '.'); i > 0 {
		if a, err := netip.ParseAddr(s[:i]); err == nil {
			return a
		}
	}
	t.Fatalf("not an address: %q", s)
	return netip.Addr{}
}
