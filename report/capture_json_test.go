package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/wincni/diag/capture"
)

// Render (JSON) streams the flows into the report's JSON: the bytes are
// those of encoding the whole report at once, for every capture of
// testdata and the public traces beside the project when they are there
// (IPv4 and IPv6 flows, findings, notes), and with no report at all.
func TestCaptureJSONStreamed(t *testing.T) {
	files, _ := filepath.Glob("../testdata/captures/*.pcap*")
	if len(files) == 0 {
		t.Fatal("no captures in ../testdata/captures")
	}
	public, _ := filepath.Glob("../../shared/captures/*/*.pcap*")
	files = append(files, public...)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	flows := 0
	for _, f := range files {
		a := capture.NewAnalyzer(capture.Options{VXLANPorts: []uint16{4789}})
		if err := a.ReadFile(f); err != nil {
			continue // the damaged ones: their error is another test's
		}
		rep := NewCaptureReport(Tool{Name: "diag", Version: "test"}, &now, a.Finish(filepath.Base(f)))
		flows += len(rep.Flows)
		checkStreamed(t, f, rep)
	}
	if flows == 0 {
		t.Fatal("no capture of testdata has a flow: the test proves nothing")
	}
	checkStreamed(t, "no report", NewCaptureReport(Tool{Name: "diag"}, nil, nil))
	checkStreamed(t, "no flows list", NewCaptureReport(Tool{Name: "diag"}, nil, &capture.Report{}))
	// A time encoding/json refuses, in a flow past the first ones: the
	// same refusal, and nothing written.
	many := make([]*capture.Flow, 3000)
	for i := range many {
		many[i] = &capture.Flow{Proto: "tcp", First: now, Last: now}
	}
	many[2999].Last = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	rep := NewCaptureReport(Tool{Name: "diag"}, &now, &capture.Report{Result: capture.Result{Flows: many}})
	var out bytes.Buffer
	if err := Render(&out, rep, JSON, TableOptions{}); err == nil || out.Len() != 0 {
		t.Errorf("a refused time: error %v, %d bytes written", err, out.Len())
	}
}

func checkStreamed(t *testing.T, name string, rep *CaptureReport) {
	t.Helper()
	var want, got bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := Render(&got, rep, JSON, TableOptions{}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("%s: streamed JSON differs\n got %.300s\nwant %.300s", name, got.Bytes(), want.Bytes())
	}
}
