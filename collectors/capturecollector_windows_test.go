package collectors

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/tools/wine/standin/standintest"
)

// collect --capture on Windows (pktmon's stand-in): pktmon writes its own
// ETL and converts it in a folder of its own; the bundle holds the pcapng
// etl2pcap wrote and pktmon's ETL beside it, and the log counts the
// packets.
func TestCaptureCollectorPktmon(t *testing.T) {
	pcap, err := os.ReadFile("../testdata/captures/seed-syn-unanswered.pcap")
	if err != nil {
		t.Fatal(err)
	}
	etl := []byte("an ETL file as pktmon writes it")
	calls := standintest.Install(t, []standintest.Rule{
		{Tool: "pktmon", Args: "filter list", Stdout: "There are no packet filters.\r\n"},
		{Tool: "pktmon", Args: "start", WriteArgAfter: "--file-name", WriteData: etl},
		{Tool: "pktmon", Args: "etl2pcap", WriteArgAfter: "--out", WriteData: pcap},
		{Tool: "pktmon"},
	})
	w, path := newTestWriter(t)
	tmp := t.TempDir()
	Run(context.Background(), w, &Env{Runner: ExecRunner{}, TempDir: tmp}, []Collector{CaptureCollector(100 * time.Millisecond)}, RunOptions{})
	b := closeAndVerify(t, w, path)
	if r := result(t, b, "capture"); r.Status != manifest.StatusOK {
		t.Fatalf("capture: %s %q; calls %q", r.Status, r.Error, calls())
	}
	if got, _ := b.ReadFile("capture/diag.pcapng"); !bytes.Equal(got, pcap) {
		t.Errorf("capture/diag.pcapng: %d bytes, want the %d etl2pcap wrote", len(got), len(pcap))
	}
	if got, _ := b.ReadFile("capture/diag.etl"); !bytes.Equal(got, etl) {
		t.Errorf("capture/diag.etl: %q", got)
	}
	log, _ := b.ReadFile("diag.log")
	if !strings.Contains(string(log), "captured 4 packets with pktmon") {
		t.Errorf("diag.log: %s", log)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
}
