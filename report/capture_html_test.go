package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wincni/diag/capture"
)

// A capture's evidence names no file: its HTML tables have no File column
// (it was drawn empty on every row); a bundle's evidence keeps it.
func TestCaptureEvidenceHasNoEmptyFileColumn(t *testing.T) {
	a := capture.NewAnalyzer(capture.Options{VXLANPorts: []uint16{4789}})
	if err := a.ReadFile("../testdata/captures/seed-syn-unanswered.pcap"); err != nil {
		t.Fatal(err)
	}
	rep := NewCaptureReport(Tool{Name: "diag", Version: "test"}, nil, a.Finish("capture"))
	if len(rep.Findings) == 0 || len(rep.Findings[0].Evidence) == 0 {
		t.Fatalf("the seed capture raised no finding with evidence: %+v", rep.Findings)
	}
	var buf bytes.Buffer
	if err := Render(&buf, rep, HTML, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if html := buf.String(); strings.Contains(html, "<th>File</th>") || !strings.Contains(html, "<th>Object</th>") {
		t.Errorf("capture evidence table: File column %v, Object column %v", strings.Contains(html, "<th>File</th>"), strings.Contains(html, "<th>Object</th>"))
	}
	if html := string(render(t, buildReport(t, "seed-broken"), "html")); !strings.Contains(html, "<th>File</th>") {
		t.Error("a bundle's evidence lost its File column")
	}
}
