package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/tools/wine/standin/standintest"
)

// capture start on Windows drives pktmon (here its stand-in): the file
// written is what etl2pcap converted, with its packets counted; pktmon's
// "Access is denied." is exit 2 with "run as Administrator", as on Linux;
// pktmon's ETL is not left behind.
func TestCaptureStartPktmon(t *testing.T) {
	const recorded = "../../testdata/captures/seed-syn-unanswered.pcap"
	pcap, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	packets := countPackets(t, recorded)
	tmp := t.TempDir()
	t.Setenv("TMP", tmp)
	t.Setenv("TEMP", tmp)
	calls := standintest.Install(t, []standintest.Rule{
		{Tool: "pktmon", Args: "filter list", Stdout: "There are no packet filters.\r\n"},
		{Tool: "pktmon", Args: "start", WriteArgAfter: "--file-name", WriteData: []byte("an ETL file"), Stdout: "Logger Parameters: ...\r\n"},
		{Tool: "pktmon", Args: "etl2pcap", WriteArgAfter: "--out", WriteData: pcap, Stdout: "Processing...\r\n"},
		{Tool: "pktmon"},
	})
	out := filepath.Join(t.TempDir(), "out.pcapng")
	r := runDiag(t, nil, false, "capture", "start", "--duration", "100ms", "--output-file", out)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+out+" (pktmon, "+strconv.Itoa(packets)+" packets)") {
		t.Fatalf("exit %d stdout %q stderr %q; calls %q", r.code, r.stdout, r.stderr, calls())
	}
	if got, _ := os.ReadFile(out); string(got) != string(pcap) {
		t.Errorf("%s holds %d bytes, not the %d etl2pcap wrote", out, len(got), len(pcap))
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in %%TEMP%%: %v", left)
	}
	if c := calls(); standintest.Count(c, "pktmon filter remove") != 1 {
		t.Errorf("calls: %q", c)
	}

	standintest.Install(t, []standintest.Rule{{Tool: "pktmon", Stdout: "Access is denied.\r\n", Exit: 5}})
	out2 := filepath.Join(t.TempDir(), "denied.pcapng")
	r = runDiag(t, nil, false, "capture", "start", "--duration", "100ms", "--output-file", out2)
	if r.code != 2 || !strings.Contains(r.stderr, "Access is denied.") || !strings.Contains(r.stderr, "Administrator") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("access denied: exit %d stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Errorf("%s written after access denied", out2)
	}

	// Any other failure is the node's pktmon, said in one line: exit 2, not 1.
	standintest.Install(t, []standintest.Rule{{Tool: "pktmon", Stdout: "Der Parameter ist falsch.\r\n", Exit: 87}})
	out3 := filepath.Join(t.TempDir(), "refused.pcapng")
	r = runDiag(t, nil, false, "capture", "start", "--duration", "100ms", "--output-file", out3)
	if r.code != 2 || !strings.Contains(r.stderr, "Der Parameter ist falsch.") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("pktmon failing: exit %d stderr %q, want 2 and one line with what it printed", r.code, r.stderr)
	}
}

func countPackets(t *testing.T, path string) int {
	t.Helper()
	s, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	var p capture.Packet
	for s.Next(&p) == nil {
		n++
	}
	return n
}

// collect --capture on Windows (pktmon's stand-in): the bundle holds the
// pcapng etl2pcap wrote, with its packets counted, and pktmon's ETL.
func TestCollectCapturePktmon(t *testing.T) {
	const recorded = "../../testdata/captures/seed-syn-unanswered.pcap"
	pcap, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	calls := standintest.Install(t, []standintest.Rule{
		{Tool: "powershell", Stdout: `{"Hostname":"WIN-1","ProductName":"Windows Server 2022 Datacenter","CurrentBuild":20348,"UBR":2227}`},
		{Tool: "pktmon", Args: "filter list", Stdout: "There are no packet filters.\r\n"},
		{Tool: "pktmon", Args: "start", WriteArgAfter: "--file-name", WriteData: []byte("an ETL file")},
		{Tool: "pktmon", Args: "etl2pcap", WriteArgAfter: "--out", WriteData: pcap},
		{Tool: "pktmon"},
	})
	out := filepath.Join(t.TempDir(), "node.zip")
	r := runDiag(t, map[string]string{"NODE_NAME": "win-1"}, false, "collect", "--only", "os,capture", "--capture", "1s", "--output-file", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s; calls %q", r.code, r.stderr, calls())
	}
	files := readZip(t, out)
	if string(files["capture/diag.pcapng"]) != string(pcap) || string(files["capture/diag.etl"]) != "an ETL file" {
		t.Errorf("capture/diag.pcapng: %d bytes (want %d); capture/diag.etl: %q", len(files["capture/diag.pcapng"]), len(pcap), files["capture/diag.etl"])
	}
	if want := "captured " + strconv.Itoa(countPackets(t, recorded)) + " packets with pktmon"; !strings.Contains(string(files["diag.log"]), want) {
		t.Errorf("diag.log lacks %q:\n%s", want, files["diag.log"])
	}
}
