package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wincni/diag/finding"
)

// compileSchema compiles the JSON schema at path, formats asserted.
func compileSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, schema *jsonschema.Schema, name string, doc []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("%s does not validate against docs/report.schema.json: %v", name, err)
	}
}

// Every JSON report validates against the schema in the repository: the
// golden ones, and one with every severity, a skip and a failed collector.
func TestReportsValidateAgainstSchema(t *testing.T) {
	schema := compileSchema(t, "../docs/report.schema.json")
	for _, c := range goldenCases {
		validate(t, schema, c.name, render(t, buildReport(t, c.inputs...), "json"))
	}
	r := buildReport(t, "seed-broken")
	for _, sev := range []finding.Severity{finding.Warn, finding.Info, finding.Error} {
		f := r.Findings[0]
		f.Severity = sev
		r.Findings = append(r.Findings, f)
	}
	r.Skipped = append(r.Skipped, finding.Skipped{ID: "OVL-02", Node: "winw1", Reason: "no Kubernetes Nodes"})
	r.Inputs[0].CollectorsFailed = []CollectorProblem{{ID: "vfp", Status: "timeout", Error: "vfpctrl did not answer in 60s"}}
	validate(t, schema, "every severity", render(t, r, "json"))
}

// The schema must be able to fail: a report that breaks the contract is
// rejected.
func TestSchemaRejectsBrokenContract(t *testing.T) {
	schema := compileSchema(t, "../docs/report.schema.json")
	var doc map[string]any
	json.Unmarshal(render(t, buildReport(t, "seed-broken"), "json"), &doc)
	f := doc["findings"].([]any)[0].(map[string]any)
	f["severity"] = "critical"
	delete(f, "summary")
	bad, _ := json.Marshal(doc)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	err := schema.Validate(v)
	if err == nil || !strings.Contains(err.Error(), "severity") {
		t.Errorf("broken report accepted: %v", err)
	}
	if _, err := os.Stat("../docs/report.schema.json"); err != nil {
		t.Fatal(err)
	}
}
