package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wincni/diag/diff"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

func loadSnap(t *testing.T, dir string) *snapshot.Snapshot {
	t.Helper()
	s := formatstest.Load(t, dir)
	s.Source = filepath.Base(dir) // stable across machines
	return s
}

func buildDiff(t *testing.T, oldDir, newDir string) *DiffReport {
	t.Helper()
	o, n := loadSnap(t, oldDir), loadSnap(t, newDir)
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	return BuildDiff(Tool{Name: "diag", Version: "test"}, &now, o, n, diff.Compare(o, n), diff.Analyze(o, n))
}

func renderDiff(t *testing.T, r *DiffReport, format string) []byte {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch format {
	case "json":
		err = Render(&buf, r, JSON, TableOptions{})
	case "md":
		err = Render(&buf, r, Markdown, TableOptions{})
	case "html":
		err = Render(&buf, r, HTML, TableOptions{})
	default:
		err = Render(&buf, r, Table, TableOptions{Width: 100})
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The seed's fix as a diff: the network recreated on the other adapter,
// OVL-01 resolved, HOST-05 new.
var diffCases = []struct{ name, old, new string }{
	{"diff-seed-fix", "../testdata/bundles/seed-broken", "../testdata/bundles/seed-fixed"},
	{"diff-identical", "../analyzers/testdata/scenarios/calico-healthy", "../analyzers/testdata/scenarios/calico-healthy"},
}

func TestDiffGolden(t *testing.T) {
	for _, c := range diffCases {
		r := buildDiff(t, c.old, c.new)
		for _, ext := range []string{"table", "md", "json", "html"} {
			golden(t, c.name+"."+ext, renderDiff(t, r, ext))
		}
	}
	seed := string(renderDiff(t, buildDiff(t, diffCases[0].old, diffCases[0].new), "table"))
	for _, want := range []string{"recreated", "network Calico", "ManagementIP: 10.0.2.15 → 10.20.30.11", "Resolved findings:", "OVL-01", "New findings:", "HOST-05"} {
		if !strings.Contains(seed, want) {
			t.Errorf("seed diff table lacks %q", want)
		}
	}
}

func TestDiffJSONValidatesAgainstSchema(t *testing.T) {
	schema := compileSchema(t, "../docs/diff.schema.json")
	for _, c := range diffCases {
		doc := renderDiff(t, buildDiff(t, c.old, c.new), "json")
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s does not validate against docs/diff.schema.json: %v", c.name, err)
		}
	}
	// Identical inputs: empty arrays, never null.
	var doc map[string]any
	json.Unmarshal(renderDiff(t, buildDiff(t, diffCases[1].old, diffCases[1].new), "json"), &doc)
	fs := doc["findings"].(map[string]any)
	for _, l := range []any{doc["changes"], doc["notes"], fs["new"], fs["resolved"], fs["persisting"]} {
		if a, ok := l.([]any); !ok || len(a) != 0 {
			t.Errorf("want an empty array, got %#v", l)
		}
	}
	// The schema can fail: an unknown change kind and a finding without
	// its summary are refused.
	json.Unmarshal(renderDiff(t, buildDiff(t, diffCases[0].old, diffCases[0].new), "json"), &doc)
	doc["changes"].([]any)[0].(map[string]any)["change"] = "moved"
	delete(doc["findings"].(map[string]any)["new"].([]any)[0].(map[string]any), "summary")
	bad, _ := json.Marshal(doc)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	err := schema.Validate(v)
	if err == nil || !strings.Contains(err.Error(), "change") || !strings.Contains(err.Error(), "summary") {
		t.Errorf("broken diff accepted: %v", err)
	}
}

// The findings in the diff are shaped exactly as in the analyze report.
func TestDiffSchemaSharesFindingDefinitions(t *testing.T) {
	read := func(p string) map[string]any {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		return s["$defs"].(map[string]any)
	}
	d, r := read("../docs/diff.schema.json"), read("../docs/report.schema.json")
	for _, def := range []string{"finding", "evidence", "ruleID", "severity"} {
		if !reflect.DeepEqual(d[def], r[def]) {
			t.Errorf("$defs.%s differs between diff.schema.json and report.schema.json", def)
		}
	}
}

// Many endpoints removed are one row with a count in the table, and each
// one in the JSON.
func TestDiffSummarizesManyObjects(t *testing.T) {
	r := &DiffReport{Changes: []diff.Change{}, Notes: []string{}, Findings: diff.Findings{New: []finding.Finding{}, Resolved: []finding.Finding{}, Persisting: []finding.Finding{}}}
	for i := range 12 {
		r.Changes = append(r.Changes, diff.Change{Kind: diff.KindEndpoint, Name: fmt.Sprintf("100.244.206.%d", 70+i), Parent: "network Calico", Change: diff.Removed})
	}
	r.Changes = append(r.Changes, diff.Change{Kind: diff.KindEndpoint, Name: "100.244.206.99", Parent: "network Calico", Change: diff.Added})
	table := string(renderDiff(t, r, "table"))
	if !strings.Contains(table, "12 endpoints (network Calico)") || !strings.Contains(table, "100.244.206.70, 100.244.206.71, 100.244.206.72") || !strings.Contains(table, "and 9 more (-o json lists each)") ||
		strings.Contains(table, "100.244.206.75") || !strings.Contains(table, "100.244.206.99") {
		t.Errorf("table:\n%s", table)
	}
	var doc DiffReport
	json.Unmarshal(renderDiff(t, r, "json"), &doc)
	if len(doc.Changes) != 13 {
		t.Errorf("JSON has %d changes, want 13", len(doc.Changes))
	}
}

// Names from the inputs are escaped in the HTML; it loads nothing.
func TestDiffHTMLEscapesAndIsSelfContained(t *testing.T) {
	r := buildDiff(t, diffCases[0].old, diffCases[0].new)
	r.Changes = append(r.Changes, diff.Change{Kind: diff.KindNetwork, Name: `<script>alert(1)</script>`, Change: diff.Added})
	page := string(renderDiff(t, r, "html"))
	if strings.Contains(page, "<script>alert") || !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("network name not escaped")
	}
	for _, ext := range []string{`src="http`, `href="http://`, "<link", "@import", "<script"} {
		if strings.Contains(page, ext) {
			t.Errorf("page has %q", ext)
		}
	}
}

func TestDiffTableColour(t *testing.T) {
	r := buildDiff(t, diffCases[0].old, diffCases[0].new)
	var plain, coloured bytes.Buffer
	Render(&plain, r, Table, TableOptions{Width: 80})
	Render(&coloured, r, Table, TableOptions{Width: 80, Color: true})
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(coloured.String(), "\x1b[") {
		t.Error("colour not as asked")
	}
	for i, l := range strings.Split(plain.String(), "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d is %d columns wide: %s", i+1, n, l)
		}
	}
}
