package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/capture/etl/etltest"
)

// etlDropReport decodes a small ETL file with a VFP drop.
func etlDropReport(t *testing.T) *CaptureReport {
	t.Helper()
	data, err := etltest.VFPDrop()
	if err != nil {
		t.Fatal(err)
	}
	src, err := capture.NewSource(bytes.NewReader(data), "PktMon.etl")
	if err != nil {
		t.Fatal(err)
	}
	a := capture.NewAnalyzer(capture.Options{})
	if err := a.ReadSource(src, "PktMon.etl"); err != nil {
		t.Fatal(err)
	}
	return NewCaptureReport(Tool{Name: "diag", Version: "test"}, nil, a.Finish("win-1"))
}

func TestCaptureJSONValidatesWithETL(t *testing.T) {
	schema := compileSchema(t, "../docs/capture.schema.json")
	check := func(name string, rep *CaptureReport) map[string]any {
		var buf bytes.Buffer
		if err := Render(&buf, rep, JSON, TableOptions{}); err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s does not validate against docs/capture.schema.json: %v", name, err)
		}
		var doc map[string]any
		json.Unmarshal(buf.Bytes(), &doc)
		return doc
	}
	doc := check("ETL with a drop", etlDropReport(t))
	etl := doc["etl"].([]any)[0].(map[string]any)
	if etl["drops"].(map[string]any)["VFP Rule Drop"] != 1.0 || etl["packets"] != 1.0 || etl["packetEvents"] != 2.0 {
		t.Errorf("etl object %v", etl)
	}
	a := capture.NewAnalyzer(capture.Options{})
	if err := a.ReadFile("../testdata/captures/seed-syn-unanswered.pcap"); err != nil {
		t.Fatal(err)
	}
	if doc := check("pcap", NewCaptureReport(Tool{Name: "diag", Version: "test"}, nil, a.Finish("n"))); doc["etl"] != nil {
		t.Errorf("a pcap's report has an etl key: %v", doc["etl"])
	}
	// The schema can fail: an etl object without its counts is refused.
	broken := map[string]any{}
	for k, v := range doc {
		broken[k] = v
	}
	broken["etl"] = []any{map[string]any{"path": "x.etl"}}
	b, _ := json.Marshal(broken)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if schema.Validate(v) == nil {
		t.Error("an etl object without packetEvents validates")
	}
	if _, err := os.Stat("../docs/capture.schema.json"); err != nil {
		t.Fatal(err)
	}
}

func TestCaptureHTMLAndTableShowETL(t *testing.T) {
	rep := etlDropReport(t)
	var h, tb, md bytes.Buffer
	if err := Render(&h, rep, HTML, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&md, rep, Markdown, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&tb, rep, Table, TableOptions{Width: 160}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"html": h.String(), "table": tb.String(), "markdown": strings.ReplaceAll(md.String(), `\`, "")} {
		for _, want := range []string{"pktmon ETL PktMon.etl (Windows build 20348): 2 packet events, 1 distinct packets", "VFP Rule Drop (12)", "VFP 0xE0006005",
			"Container NIC 5e1d (vSwitch cbr0) [4]", "10.244.1.5:0 → 10.244.2.7:0 UDP", "CAP-11"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	if !strings.Contains(h.String(), "Packet paths of PktMon.etl") {
		t.Error("html lacks the packet paths")
	}
}
