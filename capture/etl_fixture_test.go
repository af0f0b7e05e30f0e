package capture

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wincni/diag/capture/etl/etltest"
	"github.com/wincni/diag/gen"
)

var updateETL = flag.Bool("update-etl", false, "rewrite the pktmon ETL sample in testdata/captures")

// vfpDropETL is the sample's pktmon capture on node win-1 (VXLAN overlay,
// VNI 4096, host 10.240.0.4): pod 10.244.1.5 talks to 10.244.2.7 on
// win-2 (10.240.0.5) over TCP 443, each packet logged at its container
// port and, encapsulated, at the host's NIC; its DNS queries to
// 10.244.3.9 are dropped by VFP at the container port, three tries.
func vfpDropETL(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	start := time.Date(2026, 3, 12, 9, 41, 7, 0, time.UTC)
	w, err := etltest.NewWriter(&b, etltest.Options{Start: start, Build: 20348, Compress: true})
	if err != nil {
		t.Fatal(err)
	}
	// Names as Windows Server 2022's pktmon embeds them.
	w.ValueMap("DropReason", map[uint32]string{0: "Unspecified", 8: "Filtered", 9: "Filtered VLAN", 12: "Failed security policy", 20: "Virtual Subnet ID does not match"})
	w.ValueMap("ComponentType", map[uint32]string{2: "Miniport", 5: "VmsVmNic", 6: "VmsMiniport"})
	w.Component(etltest.Component{ID: 1, Type: 2, Name: "netvsc.sys", Description: "Microsoft Hyper-V Network Adapter"})
	w.Component(etltest.Component{ID: 12, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 3f2a1c0e", VSwitch: "Calico"})
	w.Component(etltest.Component{ID: 13, Type: 6, Name: "vmswitch.sys", Description: "Hyper-V Virtual Switch Extension Adapter", VSwitch: "Calico"})
	id := uint64(4100)
	pod := func(at time.Duration, p gen.Pkt, out bool) {
		id++
		inner := p
		inner.Plain = true
		dirPort, dirNIC := uint16(5), uint16(4) // Ingress into the switch from the pod, Tx on the NIC
		if !out {
			dirPort, dirNIC = 6, 3
		}
		enc := p
		if !out {
			enc.OuterSrc, enc.OuterDst = p.OuterDst, p.OuterSrc
		}
		frames := []etltest.Packet{
			{At: at, GroupID: id, Appearance: 1, Direction: dirPort, Type: 1, Component: 12, Data: inner.Bytes()},
			{At: at + 40*time.Microsecond, GroupID: id, Appearance: 2, Direction: dirNIC, Type: 1, Component: 1, Data: enc.Bytes()},
		}
		if !out {
			frames[0].At, frames[1].At = at+40*time.Microsecond, at
			frames[0].Appearance, frames[1].Appearance = 2, 1
			frames[0], frames[1] = frames[1], frames[0]
		}
		for _, f := range frames {
			w.Packet(f)
		}
	}
	tcp := func(src, dst string, sport, dport uint16, flags string, payload int) gen.Pkt {
		return gen.Pkt{OuterSrc: "10.240.0.4", OuterDst: "10.240.0.5", VNI: 4096, InnerSrc: src, InnerDst: dst, Proto: "tcp", Sport: sport, Dport: dport, TCPFlags: flags, Payload: payload}
	}
	pod(0, tcp("10.244.1.5", "10.244.2.7", 51012, 443, "S", 0), true)
	pod(900*time.Microsecond, tcp("10.244.2.7", "10.244.1.5", 443, 51012, "SA", 0), false)
	pod(1000*time.Microsecond, tcp("10.244.1.5", "10.244.2.7", 51012, 443, "A", 0), true)
	pod(1100*time.Microsecond, tcp("10.244.1.5", "10.244.2.7", 51012, 443, "A", 517), true)
	pod(3*time.Millisecond, tcp("10.244.2.7", "10.244.1.5", 443, 51012, "A", 1400), false)
	for i, at := range []time.Duration{20 * time.Millisecond, 1020 * time.Millisecond, 3020 * time.Millisecond} {
		id++
		q := gen.Pkt{InnerSrc: "10.244.1.5", InnerDst: "10.244.3.9", Proto: "udp", Sport: uint16(60100 + i), Dport: 53, Payload: 40, Plain: true}.Bytes()
		w.Packet(etltest.Packet{At: at, GroupID: id, Appearance: 1, Direction: 5, Type: 1, Component: 12, Data: q})
		w.Packet(etltest.Packet{At: at + 15*time.Microsecond, GroupID: id, Appearance: 2, Direction: 5, Type: 1, Component: 12, Data: q,
			Dropped: true, DropReason: 8, DropLocation: 0xE0006002})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestETLSample keeps testdata/captures/pktmon-vfp-drop.etl in step with
// its generator (go test ./capture -run ETLSample -update-etl rewrites it).
func TestETLSample(t *testing.T) {
	path := filepath.Join("..", "testdata", "captures", "pktmon-vfp-drop.etl")
	got := vfpDropETL(t)
	if *updateETL {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(want, got) {
		t.Fatalf("%s is not what the generator writes (go test ./capture -run ETLSample -update-etl): %v", path, err)
	}
	r := decodeETL(t, got, nil)
	fs := cap11(r)
	if len(fs) != 1 || len(r.Tunnels) != 2 || r.ETL[0].DropEvents != 3 || r.ETL[0].Drops["Filtered"] != 3 {
		t.Errorf("sample: CAP-11 %+v, %d tunnels, etl %+v", fs, len(r.Tunnels), r.ETL[0])
	}
}
