package capture

import (
	"bytes"
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/capture/etl/etltest"
	"github.com/wincni/diag/finding"
)

func TestDecodeETLDemikernel(t *testing.T) {
	in := realETLDir + "demikernel.PktMon.etl"
	if _, err := os.Stat(in); err != nil {
		t.Skipf("no real ETL file (%v): the shared inputs are not on this machine", err)
	}
	fromETL := NewAnalyzer(Options{})
	if err := fromETL.ReadFile(in); err != nil {
		t.Fatal(err)
	}
	fromCap := NewAnalyzer(Options{})
	if err := fromCap.ReadFile(realETLDir + "demikernel.PktMon.cap"); err != nil {
		t.Fatal(err)
	}
	re, rc := fromETL.Finish("n"), fromCap.Finish("n")
	if len(re.ETL) != 1 {
		t.Fatalf("%d ETL summaries", len(re.ETL))
	}
	e := re.ETL[0]
	want := `{"path":"../../shared/etl/demikernel.PktMon.etl","windowsBuild":20348,"packetEvents":114,"packets":38,"loggedBytes":11172,"originalBytes":11172,"dropEvents":0,"drops":{},"dropsByLocation":{},` +
		`"components":[{"id":48,"name":"mlx5.sys","description":"Mellanox ConnectX-4 Lx Virtual Ethernet Adapter #2","type":"Miniport","events":19},` +
		`{"id":50,"name":"NULL","description":"NETVSCVFPP","type":"Protocol","events":19},` +
		`{"id":59,"name":"netvsc.sys","description":"Microsoft Hyper-V Network Adapter #3","type":"Miniport","events":38},` +
		`{"id":61,"name":"xdp.sys","description":"XDP Lightweight Filter","type":"Filter","events":38}],` +
		`"paths":[{"components":[59,61],"packets":19},{"components":[61,59,50,48],"packets":19}],` +
		`"firstPacket":"2024-06-10T20:18:35.4891721Z","lastPacket":"2024-06-10T20:18:53.9074185Z"}`
	got, _ := json.Marshal(e)
	if string(got) != want {
		t.Errorf("etl summary:\n%s\nwant:\n%s", got, want)
	}
	// The same packets as the Windows conversion: the same counts, flows
	// and findings.
	if re.Packets != rc.Packets || re.Duplicates != rc.Duplicates || len(re.Flows) != len(rc.Flows) || len(re.Findings) != len(rc.Findings) {
		t.Errorf("from ETL: %d packets, %d duplicates, %d flows, %d findings; from pcapng: %d, %d, %d, %d",
			re.Packets, re.Duplicates, len(re.Flows), len(re.Findings), rc.Packets, rc.Duplicates, len(rc.Flows), len(rc.Findings))
	}
	if re.Files[0].Format != "etl" || re.Files[0].Packets != 114 {
		t.Errorf("file summary %+v", re.Files[0])
	}
}

// dropFixture writes an ETL file whose drops are given; the packet seen
// before each drop is logged on the container's vSwitch port.
func dropFixture(t *testing.T, drops ...etltest.Packet) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := etltest.NewWriter(&b, etltest.Options{Compress: true})
	if err != nil {
		t.Fatal(err)
	}
	w.ValueMap("DropReason", map[uint32]string{12: "VFP Rule Drop", 1209: "INET: no listener", 3: "Filtered VLAN"})
	w.Component(etltest.Component{ID: 4, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 5e1d", VSwitch: "cbr0"})
	w.Component(etltest.Component{ID: 30, Type: 11, Name: "tcpip.sys", Description: "TCP/IPv4 - L3/L4"})
	w.Component(etltest.Component{ID: 6, Type: 8, Name: "vmswitch.sys", Description: "Hyper-V Virtual Ethernet Adapter", VSwitch: "cbr0"})
	for i, d := range drops {
		d.At = time.Duration(i+1) * time.Millisecond
		d.GroupID = uint64(i + 1)
		d.Type, d.Dropped = 1, true
		seen := d
		seen.Dropped, seen.DropReason, seen.DropLocation, seen.Component, seen.At = false, 0, 0, 4, d.At-time.Microsecond
		w.Packet(seen)
		w.Packet(d)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func decodeETL(t *testing.T, b []byte, ctx *Context) *Report {
	t.Helper()
	src, err := NewSource(bytes.NewReader(b), "PktMon.etl")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAnalyzer(Options{Context: ctx})
	if err := a.ReadSource(src, "PktMon.etl"); err != nil {
		t.Fatal(err)
	}
	return a.Finish("win-1")
}

func cap11(r *Report) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.ID == "CAP-11" {
			out = append(out, f)
		}
	}
	return out
}

func TestCAP10(t *testing.T) {
	pod := ipv4UDP(t, "10.244.1.5", "10.244.2.7", 40000, 53)
	host := ipv4UDP(t, "192.168.1.10", "192.168.1.20", 50000, 9999)
	podCtx := &Context{PodPrefixes: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}
	vfp := etltest.Packet{Component: 4, Direction: 6, DropReason: 12, DropLocation: 0xE0006005, Data: pod}
	vswitch := etltest.Packet{Component: 4, Direction: 5, DropReason: 3, DropLocation: 0xE0002010, Data: pod}
	tcpipPod := etltest.Packet{Component: 30, Direction: 1, DropReason: 1209, DropLocation: 0xE0004514, Data: pod}
	tcpipHost := etltest.Packet{Component: 30, Direction: 1, DropReason: 1209, DropLocation: 0xE0004514, Data: host}

	t.Run("VFP and vSwitch drops fail, reasons as evidence", func(t *testing.T) {
		r := decodeETL(t, dropFixture(t, vfp, vfp, vswitch, tcpipHost), nil)
		fs := cap11(r)
		if len(fs) != 1 || fs[0].Severity != finding.Fail {
			t.Fatalf("CAP-11 = %+v", fs)
		}
		f := fs[0]
		if !strings.Contains(f.Summary, "3 packet drop events at VFP or the vSwitch") || !strings.Contains(f.Summary, "VFP Rule Drop ×2") || !strings.Contains(f.Summary, "Filtered VLAN ×1") {
			t.Errorf("summary %q", f.Summary)
		}
		if len(f.Evidence) != 2 || f.Evidence[0].Value != "VFP Rule Drop (12) at VFP 0xE0006005" || f.Evidence[0].Object != "component Container NIC 5e1d (vSwitch cbr0) [4]" ||
			!strings.Contains(f.Evidence[0].Note, "10.244.1.5:40000 → 10.244.2.7:53 UDP") || f.Evidence[0].File != "PktMon.etl" {
			t.Errorf("evidence %+v", f.Evidence)
		}
		e := r.ETL[0]
		if e.DropEvents != 4 || e.Drops["VFP Rule Drop"] != 2 || e.Drops["INET: no listener"] != 1 || e.DropsByLocation["VFP 0xE0006005"] != 2 || e.Packets != 4 {
			t.Errorf("etl summary %+v", e)
		}
		if len(e.DropDetails) != 3 || e.DropDetails[0].Layer != "VFP" || e.DropDetails[2].Layer != "TCP/IP TL" {
			t.Errorf("drop details %+v", e.DropDetails)
		}
	})
	t.Run("pod traffic dropped by TCP/IP warns with the pod subnets", func(t *testing.T) {
		fs := cap11(decodeETL(t, dropFixture(t, tcpipPod, tcpipHost), podCtx))
		if len(fs) != 1 || fs[0].Severity != finding.Warn || !strings.Contains(fs[0].Summary, "1 packet drop events of pod traffic") ||
			len(fs[0].Subjects) != 2 || fs[0].Subjects[0] != "address:10.244.1.5" || strings.Contains(fs[0].Evidence[0].Note, "192.168") {
			t.Fatalf("CAP-11 = %+v", fs)
		}
	})
	t.Run("silent on the host's own drops", func(t *testing.T) {
		if fs := cap11(decodeETL(t, dropFixture(t, tcpipHost, tcpipHost), podCtx)); len(fs) != 0 {
			t.Fatalf("CAP-11 on host drops: %+v", fs)
		}
	})
	t.Run("silent on TCP/IP drops without the pod subnets", func(t *testing.T) {
		if fs := cap11(decodeETL(t, dropFixture(t, tcpipPod), nil)); len(fs) != 0 {
			t.Fatalf("CAP-11 without context: %+v", fs)
		}
	})
	multicast := append([]byte(nil), pod...)
	copy(multicast, []byte{0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb})
	mcastDrop := etltest.Packet{Component: 4, Direction: 6, DropReason: 34, DropLocation: 0xE0002021, Data: multicast}
	hostVNIC := etltest.Packet{Component: 6, Direction: 6, DropReason: 9, DropLocation: 0xE0002010, Data: host}
	hostVNICPod := etltest.Packet{Component: 6, Direction: 6, DropReason: 9, DropLocation: 0xE0002010, Data: pod}
	t.Run("silent on multicast turned away by a port's filter", func(t *testing.T) {
		r := decodeETL(t, dropFixture(t, mcastDrop, mcastDrop), podCtx)
		if fs := cap11(r); len(fs) != 0 || r.ETL[0].DropDetails[0].Multicast != 2 {
			t.Fatalf("CAP-11 = %+v, details %+v", fs, r.ETL[0].DropDetails)
		}
	})
	t.Run("silent on the host vNIC's own drops", func(t *testing.T) {
		if fs := cap11(decodeETL(t, dropFixture(t, hostVNIC), nil)); len(fs) != 0 {
			t.Fatalf("CAP-11 = %+v", fs)
		}
		if fs := cap11(decodeETL(t, dropFixture(t, hostVNIC), podCtx)); len(fs) != 0 {
			t.Fatalf("CAP-11 with the pod subnets = %+v", fs)
		}
	})
	t.Run("pod traffic dropped at another vSwitch port fails with the pod subnets", func(t *testing.T) {
		fs := cap11(decodeETL(t, dropFixture(t, hostVNICPod, hostVNIC), podCtx))
		if len(fs) != 1 || fs[0].Severity != finding.Fail || !strings.Contains(fs[0].Summary, "1 packet drop events at VFP or the vSwitch") {
			t.Fatalf("CAP-11 = %+v", fs)
		}
	})
	t.Run("silent without drops", func(t *testing.T) {
		r := decodeETL(t, dropFixture(t), nil)
		if fs := cap11(r); len(fs) != 0 || r.ETL[0].DropEvents != 0 {
			t.Fatalf("CAP-11 = %+v", fs)
		}
	})
}

func TestBundleCapturesETL(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"hns/v2/networks.json", "capture/node.etl", "PktMon.etl", "logs/hns-trace.etl", "capture/x.pcapng", "capture/notes.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := bundle.Open(dir, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := strings.Join(BundleCaptures(b), " ")
	if got != "PktMon.etl capture/node.etl capture/x.pcapng" {
		t.Errorf("captures = %q", got)
	}
}

// FuzzETLSource feeds arbitrary ETL files (seeded with the samples: a
// VFP drop, VXLAN, a rundown) through the source, the analyzer, the
// report and the pcapng conversion: no input may panic, and what is
// counted must add up.
func FuzzETLSource(f *testing.F) {
	f.Add(dropFixture(&testing.T{}, etltest.Packet{Component: 4, DropReason: 12, DropLocation: 0xE0006005, Data: make([]byte, 60)}))
	if b, err := os.ReadFile("../testdata/captures/pktmon-vfp-drop.etl"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		src, err := NewSource(bytes.NewReader(b), "fuzz.etl")
		if err != nil {
			return
		}
		a := NewAnalyzer(Options{Context: &Context{PodPrefixes: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}})
		if err := a.ReadSource(src, "fuzz.etl"); err != nil {
			return
		}
		r := a.Finish("n")
		if src.Format == "etl" {
			e := r.ETL[0]
			var events int64
			for _, c := range e.Components {
				events += c.Events
			}
			if events != e.PacketEvents || e.Packets > e.PacketEvents || e.DropEvents > e.PacketEvents {
				t.Fatalf("counts do not add up: %+v", e)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Fatal(err)
			}
		}
		ConvertETL(bytes.NewReader(b), "fuzz.etl", io.Discard, "fuzz")
	})
}

// A netsh trace (NDIS-PacketCapture) file decodes and converts like
// pktmon's: VXLAN on adapter 7, packets named by adapter.
func TestNDISCaptureDecodeAndConvert(t *testing.T) {
	var b bytes.Buffer
	w, err := etltest.NewWriter(&b, etltest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	whole := uint64(etltest.NDISPacketStart | etltest.NDISPacketEnd | etltest.NDISEthernet)
	for i, p := range healthy() {
		dir := uint64(etltest.NDISSendPath)
		if i%2 == 1 {
			dir = etltest.NDISReceivePath
		}
		w.NDISPacket(etltest.NDISPacket{At: time.Duration(i) * time.Millisecond, LowerIfIndex: 7, Keyword: whole | dir, Data: p.Bytes()})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := decodeETL(t, b.Bytes(), nil)
	if r.Files[0].Format != "etl" || r.Files[0].Packets != int64(len(healthy())) || r.VXLANPackets == 0 || len(r.Tunnels) == 0 {
		t.Errorf("decode: %+v, %d VXLAN, %d tunnels", r.Files, r.VXLANPackets, len(r.Tunnels))
	}
	if e := r.ETL[0]; e.Packets != e.PacketEvents || len(e.Components) != 1 || e.Components[0].Description != "ifIndex 7 (netsh trace)" || len(e.Paths) != 0 {
		t.Errorf("etl summary %+v", e)
	}
	var out bytes.Buffer
	st, err := ConvertETL(bytes.NewReader(b.Bytes()), "netsh.etl", &out, "diag test")
	if err != nil || st.Packets != int64(len(healthy())) || st.Interfaces != 1 {
		t.Fatalf("convert: %+v %v", st, err)
	}
	comments, ifaces, _ := epbComments(t, out.Bytes())
	if ifaces[0] != "ifIndex 7" || comments[0] != "ifIndex 7, Out" || comments[1] != "ifIndex 7, In" {
		t.Errorf("interfaces %q, comments %q", ifaces, comments[:2])
	}
}
