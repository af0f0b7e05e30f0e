package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wincni/diag/finding"
)

// Two bundles of one node (seed-fixed and seed-broken are both winw1): the
// analysis's note is one line in every format, and the JSON, with its new
// top-level "notes", still validates against the schema.
func TestSameNodeNoteInEveryFormat(t *testing.T) {
	r := buildReport(t, "seed-fixed", "seed-broken")
	if len(r.Notes) != 1 {
		t.Fatalf("notes: %q", r.Notes)
	}
	note := r.Notes[0]
	if !strings.HasPrefix(note, "winw1: 2 bundles of the same node (seed-fixed, seed-broken)") {
		t.Errorf("note: %s", note)
	}
	for _, format := range []string{"table", "md", "html"} {
		out := string(render(t, r, format))
		// The table wraps at its width; compare without line breaks.
		flat := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(flat, "winw1: 2 bundles of the same node") || strings.Count(flat, "bundles of the same node") != 1 {
			t.Errorf("%s lacks the note once:\n%s", format, out)
		}
	}
	doc := render(t, r, "json")
	validate(t, compileSchema(t, "../docs/report.schema.json"), "same node twice", doc)
	var got struct {
		Notes    []string `json:"notes"`
		Findings []struct{ ID, Node, Input string }
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 1 || got.Notes[0] != note {
		t.Errorf("json notes: %q", got.Notes)
	}
	for _, f := range got.Findings {
		if f.Node != "winw1 ("+f.Input+")" {
			t.Errorf("finding %s does not name its bundle: node %q input %q", f.ID, f.Node, f.Input)
		}
	}
}

// What a reader repaired or read only in part (an input's notes) is shown in
// every format, so a report on a cut paste says what it could not see.
func TestInputNotesInEveryFormat(t *testing.T) {
	r := buildReport(t, "seed-broken")
	r.Inputs[0].Notes = []string{"paste.txt: network External has no Type line (the paste was cut?): its type is unknown"}
	for _, format := range []string{"table", "md", "html", "json"} {
		flat := strings.Join(strings.Fields(string(render(t, r, format))), " ")
		if !strings.Contains(flat, "network External has no Type line") {
			t.Errorf("%s lacks the input's note", format)
		}
	}
}

// Skipped rules are one line by default, every one with ShowSkipped.
func TestSkippedSummary(t *testing.T) {
	r := buildReport(t, "seed-broken")
	r.Skipped = append(r.Skipped, finding.Skipped{ID: "SVC-09", Node: "winw1", Reason: "no host/portranges.json"}, finding.Skipped{ID: "SVC-07", Node: "winw1", Reason: "no host/os.json"})
	var short, long strings.Builder
	Render(&short, r, Table, TableOptions{Width: 200})
	Render(&long, r, Table, TableOptions{Width: 200, ShowSkipped: true})
	if strings.Contains(short.String(), "no host/portranges.json") || !strings.Contains(short.String(), "not run for want of their inputs") || !strings.Contains(short.String(), "--show-skipped") {
		t.Errorf("default:\n%s", short.String())
	}
	if !strings.Contains(long.String(), "skipped SVC-09 on winw1: no host/portranges.json") {
		t.Errorf("--show-skipped:\n%s", long.String())
	}
}
