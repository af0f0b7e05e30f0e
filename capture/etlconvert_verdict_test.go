package capture

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/capture/etl/etltest"
)

// A drop's enhanced packet block carries epb_verdict as etl2pcapng
// writes it (Linux eBPF XDP, XDP_DROP), and tshark shows it as
// frame.verdict; a packet passed on has none.
func TestConvertETLVerdict(t *testing.T) {
	var in bytes.Buffer
	w, err := etltest.NewWriter(&in, etltest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Component(etltest.Component{ID: 4, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 5e1d"})
	data := ipv4UDP(t, "10.244.1.5", "10.244.2.7", 40000, 53)
	w.Packet(etltest.Packet{GroupID: 9, Type: 1, Component: 4, Direction: 5, Data: data})
	w.Packet(etltest.Packet{At: time.Millisecond, GroupID: 9, Appearance: 2, Type: 1, Component: 4, Direction: 6, Dropped: true, DropReason: 12, DropLocation: 0xE0006005, Data: data})
	w.Packet(etltest.Packet{At: 2 * time.Millisecond, GroupID: 10, Type: 1, Component: 4, Direction: 5, Data: data})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := ConvertETL(&in, "drops.etl", &out, "diag test"); err != nil {
		t.Fatal(err)
	}
	opt := []byte{7, 0, 9, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if n := bytes.Count(out.Bytes(), opt); n != 1 {
		t.Errorf("%d epb_verdict options of XDP_DROP, want 1", n)
	}
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not on PATH: the verdict is checked in the bytes only")
	}
	path := filepath.Join(t.TempDir(), "drops.pcapng")
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command(tshark, "-n", "-r", path, "-T", "fields", "-e", "frame.verdict.ebpf_xdp").Output()
	if got := strings.Fields(strings.ReplaceAll(string(b), "\n", " _ ")); err != nil || strings.Join(got, " ") != "_ 1 _ _" {
		t.Errorf("tshark's frame.verdict.ebpf_xdp per packet: %q (%v), want the second packet's only, 1", b, err)
	}
}
