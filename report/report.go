package report

import (
	"time"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/snapshot"
)

// SchemaVersion of the JSON report. The keys of DESIGN.md ("Machine-readable
// output") are a public contract: add keys freely, never rename them.
const SchemaVersion = 1

// Report is everything a renderer shows.
type Report struct {
	SchemaVersion int               `json:"schemaVersion"`
	Tool          Tool              `json:"tool"`
	GeneratedAt   *time.Time        `json:"generatedAt,omitempty"`
	Inputs        []Input           `json:"inputs"`
	Summary       Summary           `json:"summary"`
	Findings      []finding.Finding `json:"findings"`
	Skipped       []finding.Skipped `json:"skipped"`
	// Notes are about the analysis as a whole (several bundles of one node),
	// one line each.
	Notes []string `json:"notes,omitempty"`
	// The overlay picture, which only the HTML report draws: built on
	// first use from the snapshots and findings it was built from.
	overlay     *Overlay
	overlayFrom []*snapshot.Snapshot // until the picture is built
}

// picture returns the overlay picture, building it the first time.
func (r *Report) picture() *Overlay {
	if r.overlayFrom != nil {
		r.overlay, r.overlayFrom = buildOverlay(r.overlayFrom, r.Findings), nil
	}
	return r.overlay
}

// Tool identifies the diag that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Input is one analyzed bundle, with what its manifest says about how it was
// collected.
type Input struct {
	Path             string             `json:"path"`
	Node             string             `json:"node"`
	Kind             string             `json:"kind"` // what the input was: "zip", "directory"
	Facts            snapshot.NodeFacts `json:"facts"`
	CollectedBy      string             `json:"collectedBy,omitempty"`
	Collected        *time.Time         `json:"collected,omitempty"`
	CollectorsFailed []CollectorProblem `json:"collectorsFailed,omitempty"`
	Notes            []string           `json:"notes,omitempty"`
	// Checked says which rules ran on the input and which do not apply.
	Checked *finding.Coverage `json:"checked,omitempty"`
}

// CollectorProblem is a collector that did not finish cleanly.
type CollectorProblem struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Summary counts findings by severity.
type Summary struct {
	Fail    int `json:"fail"`
	Warn    int `json:"warn"`
	Info    int `json:"info"`
	Error   int `json:"error"`
	Skipped int `json:"skipped"`
}

// Build assembles a report from analyzed snapshots and the rules' result.
func Build(tool Tool, now *time.Time, snaps []*snapshot.Snapshot, res finding.Result) *Report {
	r := &Report{SchemaVersion: SchemaVersion, Tool: tool, GeneratedAt: now,
		Inputs: []Input{}, Findings: res.Findings, Skipped: res.Skipped, Notes: res.Notes}
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	if r.Skipped == nil {
		r.Skipped = []finding.Skipped{}
	}
	for _, s := range snaps {
		in := Input{Path: s.Source, Node: s.NodeName(), Kind: s.SourceKind, Facts: s.Facts, Notes: s.Notes, Checked: res.Coverage[s.Source]}
		if m := s.Manifest; m != nil {
			if m.Tool != nil {
				in.CollectedBy = m.Tool.Name + " " + m.Tool.Version
			}
			in.Collected = m.Started
			for _, c := range m.Collectors {
				if c.Status != manifest.StatusOK && c.Status != manifest.StatusSkipped && c.Status != manifest.StatusUnsupported {
					in.CollectorsFailed = append(in.CollectorsFailed, CollectorProblem{ID: c.ID, Status: c.Status, Error: c.Error})
				}
			}
		}
		r.Inputs = append(r.Inputs, in)
	}
	for _, f := range r.Findings {
		switch f.Severity {
		case finding.Fail:
			r.Summary.Fail++
		case finding.Warn:
			r.Summary.Warn++
		case finding.Info:
			r.Summary.Info++
		case finding.Error:
			r.Summary.Error++
		}
	}
	r.Summary.Skipped = len(r.Skipped)
	r.overlayFrom = snaps
	return r
}

// Worst is the highest severity among the findings (Skip when none).
func (r *Report) Worst() finding.Severity {
	worst := finding.Skip
	for _, f := range r.Findings {
		if f.Severity > worst {
			worst = f.Severity
		}
	}
	return worst
}

// findingsOf returns the findings of one input, in report order.
func (r *Report) findingsOf(path string) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Input == path {
			out = append(out, f)
		}
	}
	return out
}
