package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/capture/etl/etltest"
)

// writeETL writes a small pktmon ETL file: one packet seen at a
// container's vSwitch port, then dropped by VFP.
func writeETL(t *testing.T, path string) {
	t.Helper()
	data, err := etltest.VFPDrop()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCaptureConvert(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "PktMon.etl"), filepath.Join(dir, "out.pcapng")
	writeETL(t, in)
	r := runDiag(t, nil, false, "capture", "convert", in, "--output-file", out)
	if r.code != 0 || !strings.Contains(r.stdout, "2 packets (1 dropped) on 1 interfaces") {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	src, err := capture.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var p capture.Packet
	if err := src.Next(&p); err != nil || len(p.Data) != 60 || src.InterfaceName(0) != "Container NIC 5e1d [4]" {
		t.Errorf("first packet: %v, %d bytes, interface %q", err, len(p.Data), src.InterfaceName(0))
	}
	// The output exists now: refused without --force.
	if r := runDiag(t, nil, false, "capture", "convert", in, "--output-file", out); r.code != 2 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("second run: code %d, stderr %q", r.code, r.stderr)
	}
	// A pcapng is not an ETL file: exit 2, one line naming it.
	if r := runDiag(t, nil, false, "capture", "convert", out, "--output-file", filepath.Join(dir, "x.pcapng")); r.code != 2 || !strings.Contains(r.stderr, out+": not an ETL file") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("pcapng input: code %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.pcapng")); err == nil {
		t.Error("a failed conversion left its output")
	}
	if r := runDiag(t, nil, false, "capture", "convert", in); r.code != 2 || !strings.Contains(r.stderr, "needs --output-file") {
		t.Errorf("no output: code %d, stderr %q", r.code, r.stderr)
	}
}

func TestCaptureDecodeETL(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "PktMon.etl")
	writeETL(t, in)
	r := runDiag(t, nil, false, "capture", "decode", in)
	if r.code != 3 || !strings.Contains(r.stdout, "CAP-11") || !strings.Contains(r.stdout, "VFP Rule Drop") {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runDiag(t, nil, false, "capture", "decode", "-o", "json", in)
	if r.code != 3 || !strings.Contains(r.stdout, `"etl":[{"path":`+jsonString(in)+`,"windowsBuild":20348,"packetEvents":2,"packets":1,`) || !strings.Contains(r.stdout, `"drops":{"VFP Rule Drop":1}`) {
		t.Errorf("json: code %d, %s", r.code, r.stdout)
	}
	// Cut short: the packet before the cut is reported, with a note.
	b, _ := os.ReadFile(in)
	cut := filepath.Join(dir, "cut.etl")
	os.WriteFile(cut, b[:len(b)-10], 0o644)
	r = runDiag(t, nil, false, "capture", "decode", cut)
	if r.code != 0 || !strings.Contains(flat(r.stdout), "the file is cut short in buffer 1") {
		t.Errorf("cut file: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// Not ETL past its first bytes: exit 2, one line naming the file.
	bad := filepath.Join(dir, "bad.etl")
	os.WriteFile(bad, append(b[:0x50:0x50], bytes.Repeat([]byte{0xEE}, 400)...), 0o644)
	r = runDiag(t, nil, false, "capture", "decode", bad)
	if r.code != 2 || !strings.HasPrefix(r.stderr, "diag: "+bad+": ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("bad file: code %d, stderr %q", r.code, r.stderr)
	}
}

// copyDir copies a folder of files (one level of subfolders and more).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// diag analyze decodes the pktmon ETL files of bundles and collectlogs
// folders: the drop comes out as CAP-11 beside the bundle's findings.
func TestAnalyzeReadsETL(t *testing.T) {
	for _, c := range []struct{ from, etl string }{
		{seedBroken, "capture/PktMon.etl"},
		{"../../testdata/collectlogs/seed-broken", "PktMon.etl"},
	} {
		dir := filepath.Join(t.TempDir(), "in")
		copyDir(t, c.from, dir)
		os.MkdirAll(filepath.Dir(filepath.Join(dir, c.etl)), 0o755)
		writeETL(t, filepath.Join(dir, c.etl))
		r := runDiag(t, nil, false, "analyze", "-o", "json", dir)
		var rep struct {
			Findings []struct{ ID, Severity, Summary string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 3 {
			t.Fatalf("%s: code %d, %v, stderr %q", c.from, r.code, err, r.stderr)
		}
		found := false
		for _, f := range rep.Findings {
			found = found || f.ID == "CAP-11" && f.Severity == "fail" && strings.Contains(f.Summary, "VFP Rule Drop ×1")
		}
		if !found {
			t.Errorf("%s with %s: no CAP-11 among %+v", c.from, c.etl, rep.Findings)
		}
	}
}

// The pktmon example of docs/etl.md shows what diag prints for the sample.
func TestREADMEETLSample(t *testing.T) {
	b, err := os.ReadFile("../../docs/etl.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "$ diag capture decode testdata/captures/pktmon-vfp-drop.etl\n"
	_, block, ok := strings.Cut(string(b), cmd)
	if !ok {
		t.Fatal("docs/etl.md has no pktmon example")
	}
	block, _, _ = strings.Cut(block, "```")
	t.Chdir("../..")
	r := runDiag(t, nil, false, "capture", "decode", "testdata/captures/pktmon-vfp-drop.etl")
	if r.code != 3 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("docs/etl.md shows %q, diag prints:\n%s", line, r.stdout)
		}
	}
}

// jsonString is s as JSON writes it (a Windows path's backslashes doubled).
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
