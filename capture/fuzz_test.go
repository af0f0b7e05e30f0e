package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket/layers"
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
	a := NewAnalyzer(Options{VXLANPorts: []uint16{4789, 8472}, ExpectedVNI: 4096, MTU: 1500})
	f.Fuzz(func(t *testing.T, data []byte, lt uint16) {
		p := Packet{Data: data, Length: len(data) + int(lt%3), LinkType: layers.LinkType(lt)}
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
	f.Add(append(append([]byte{}, magicPcapng[:]...), make([]byte, 32)...))
	ng := append(append(ngSHBytes(), ngIDBytes(1)...), ngIDBytes(101)...)
	ng = append(ng, ngEPBytes(0, healthy()[0].Bytes())...)
	ng = append(ng, ngEPBytes(1, healthy()[1].Bytes()[14:])...)
	f.Add(ng)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Small limits, so that fuzzed files cross them.
		lim := Limits{MaxPacketSize: 2048, MaxInterfaces: 2, MaxFlows: 4, MaxTunnels: 2}
		src, err := NewSourceLimits(bytes.NewReader(data), "fuzz", lim)
		if err != nil {
			return
		}
		a := NewAnalyzer(Options{Limits: lim})
		a.ReadSource(src, "fuzz")
		a.Finish("fuzz")
	})
}
