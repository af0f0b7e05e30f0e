package gen

import (
	"github.com/wincni/diag/golden"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedSYNs is the seed's symptom seen on the Linux node: the SYNs of
// 100.244.49.69 to the Windows pod 100.244.206.68 encapsulated to the NAT
// address 10.0.2.15, retransmitted, never answered; beside it a healthy
// exchange with another pod through the same node's right address.
func seedSYNs() []Pkt {
	var pkts []Pkt
	for i, at := range []time.Duration{0, 1008 * time.Millisecond, 3016 * time.Millisecond, 7040 * time.Millisecond} {
		pkts = append(pkts, Pkt{At: at, OuterSrc: "10.20.30.10", OuterDst: "10.0.2.15", VNI: 4096, InnerDstMAC: "00:15:5d:64:51:0e",
			InnerSrc: "100.244.49.69", InnerDst: "100.244.206.68", Sport: 54398, Dport: 80, TCPFlags: "S", IPID: uint16(0x1c3a + i)})
	}
	return pkts
}

// TestSamples keeps testdata/captures in step with the generator
// (go test ./gen -update rewrites them).
func TestSamples(t *testing.T) {
	dir := filepath.Join("..", "testdata", "captures")
	samples := map[string][]Pkt{"seed-syn-unanswered.pcap": seedSYNs()}
	for name, pkts := range samples {
		path := filepath.Join(dir, name)
		if golden.Updating() {
			if err := WritePcap(path, pkts); err != nil {
				t.Fatal(err)
			}
		}
		tmp := filepath.Join(t.TempDir(), name)
		if err := WritePcap(tmp, pkts); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(path)
		got, _ := os.ReadFile(tmp)
		if err != nil || string(want) != string(got) {
			t.Errorf("%s is not what the generator writes (go test ./gen -update): %v", path, err)
		}
	}
}
