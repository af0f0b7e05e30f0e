package capture

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/wincni/diag/capture/wire"
)

// FuzzDecode feeds arbitrary frames of every link type to the decoder and
// the analyzer: no input may panic or read out of bounds.
func FuzzDecode(f *testing.F) {
	for _, p := range healthy() {
		f.Add(p.Bytes(), uint16(layers.LinkTypeEthernet))
	}
	f.Add([]byte{0x45, 0, 0, 20}, uint16(layers.LinkTypeRaw))
	f.Add([]byte{0x60, 0, 0, 0, 0, 8, 44, 64}, uint16(229))
	f.Add(bytes.Repeat([]byte{0x81, 0x00}, 20), uint16(276))
	// The encapsulations around the tunnels: Geneve carrying IP, LLC/SNAP,
	// GRE, underlay ICMP errors about tunnel packets.
	for _, c := range [][]pkt{geneveCarriers(), tunnelHeaders(), llcSNAP(), greMirrors(), underlayTooBig()[len(healthy()):]} {
		for _, p := range c {
			f.Add(p.data, uint16(layers.LinkTypeEthernet))
		}
	}
	for _, p := range sllLLC() {
		f.Add(p.data, uint16(layers.LinkTypeLinuxSLL))
	}
	a := NewAnalyzer(Options{VXLANPorts: []uint16{4789, 8472}, ExpectedVNI: 4096, MTU: 1500})
	f.Fuzz(func(t *testing.T, data []byte, lt uint16) {
		p := Packet{Data: data, Length: len(data) + int(lt%3), LinkType: LinkType(lt)}
		a.Add(&p)
		a.f.verifyL4(data)
	})
}

// FuzzSource feeds arbitrary files to the pcap/pcapng readers.
func FuzzSource(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(tcpdumpTests, "*.pcap"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 20000 {
			f.Add(data)
		}
	}
	f.Add(append(append([]byte{}, wire.MagicPcapng[:]...), make([]byte, 32)...))
	ng := append(append(ngSHBytes(), ngIDBytes(1)...), ngIDBytes(101)...)
	ng = append(ng, ngEPBytes(0, healthy()[0].Bytes())...)
	ng = append(ng, ngEPBytes(1, healthy()[1].Bytes()[14:])...)
	f.Add(ng)
	// Corner cases (corner_test.go): stacked tunnels, odd flags, IPv6
	// extension headers, a bogus inner length.
	in := innerTCP(podA, podB, tcpSeg{sport: 1, dport: 2, flags: "S", id: 1})
	for _, frame := range [][]byte{
		encap(vtepA, vtepB, 4789, 100, encap("172.16.0.1", "172.16.0.2", 4789, 200, in)),
		udpFrame(vtepA, vtepB, 49152, 6081, geneve(7, encap("172.16.0.1", "172.16.0.2", 4789, 300, in))),
		udpFrame(vtepA, vtepB, 49152, 4789, append(vxlanHdr(0x0C, 4096, 0x03), in...), layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q),
		encap("2001:db8::1", "2001:db8::2", 4789, 1, innerTCP("fd00::1", "fd00::2", tcpSeg{sport: 3, dport: 4, flags: "A"})),
	} {
		f.Add(append(append(append([]byte{}, ngSHBytes()...), ngIDBytes(1)...), ngEPBytes(0, frame)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Small limits, so that fuzzed files cross them.
		lim := Limits{MaxPacketSize: 2048, MaxInterfaces: 2, MaxFlows: 4, MaxTunnels: 2}
		src, err := NewSourceLimits(bytes.NewReader(data), "fuzz", lim)
		if err != nil {
			return
		}
		a := NewAnalyzer(Options{Limits: lim})
		// Serially: the pipelined reader's goroutines make coverage vary
		// from run to run, and the fuzzer then spends its time
		// minimizing instead of exploring (TestPipelineMatchesSerial
		// holds the two readers to the same result).
		a.readSerial(src)
		a.limitNotes = append(a.limitNotes, src.Notes()...)
		// The whole path: whatever the file holds, the report is valid JSON.
		out, err := json.Marshal(a.Finish("fuzz"))
		if err != nil || !json.Valid(out) {
			t.Fatalf("report: %v", err)
		}
	})
}
