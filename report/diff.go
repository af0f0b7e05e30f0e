package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wincni/diag/diff"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// DiffReport is what `diag diff` renders: two snapshots of one node, what
// changed between them and which findings are new, resolved or persisting.
// Its JSON is a public contract (docs/diff.schema.json).
type DiffReport struct {
	SchemaVersion int           `json:"schemaVersion"`
	Tool          Tool          `json:"tool"`
	GeneratedAt   *time.Time    `json:"generatedAt,omitempty"`
	Old           DiffSide      `json:"old"`
	New           DiffSide      `json:"new"`
	Changes       []diff.Change `json:"changes"`
	Notes         []string      `json:"notes"`
	Findings      diff.Findings `json:"findings"`
	// Summary counts what the closing line says, as analyze's does.
	Summary DiffSummary `json:"summary"`
}

// DiffSummary counts the changes and the findings of each kind, and the
// new side's findings by severity.
type DiffSummary struct {
	Changes    int     `json:"changes"`
	New        int     `json:"new"`
	Resolved   int     `json:"resolved"`
	Persisting int     `json:"persisting"`
	Now        Summary `json:"now"` // the new side's findings (new and persisting) by severity
}

// DiffSide is one of the two inputs.
type DiffSide struct {
	Path      string     `json:"path"`
	Node      string     `json:"node"`
	Format    string     `json:"format,omitempty"` // diag bundle, collectlogs, ...
	Collected *time.Time `json:"collected,omitempty"`
}

// BuildDiff assembles a diff report.
func BuildDiff(tool Tool, now *time.Time, old, new *snapshot.Snapshot, res diff.Result, f diff.Findings) *DiffReport {
	r := &DiffReport{SchemaVersion: SchemaVersion, Tool: tool, GeneratedAt: now,
		Old: diffSide(old), New: diffSide(new), Changes: res.Changes, Notes: res.Notes, Findings: f}
	if r.Changes == nil {
		r.Changes = []diff.Change{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	for _, l := range []*[]finding.Finding{&r.Findings.New, &r.Findings.Resolved, &r.Findings.Persisting} {
		if *l == nil {
			*l = []finding.Finding{}
		}
	}
	r.Summary = DiffSummary{Changes: len(r.Changes), New: len(r.Findings.New), Resolved: len(r.Findings.Resolved), Persisting: len(r.Findings.Persisting)}
	for _, l := range [][]finding.Finding{r.Findings.New, r.Findings.Persisting} {
		for _, f := range l {
			switch f.Severity {
			case finding.Fail:
				r.Summary.Now.Fail++
			case finding.Warn:
				r.Summary.Now.Warn++
			case finding.Info:
				r.Summary.Now.Info++
			case finding.Error:
				r.Summary.Now.Error++
			}
		}
	}
	return r
}

func diffSide(s *snapshot.Snapshot) DiffSide {
	d := DiffSide{Path: s.Source, Node: s.NodeName(), Format: s.Format}
	if s.Manifest != nil {
		d.Collected = s.Manifest.Started
	}
	return d
}

// Changed says whether anything differs: a change, or a finding new or
// resolved (a persisting one is no difference).
func (r *DiffReport) Changed() bool {
	return len(r.Changes) > 0 || len(r.Findings.New) > 0 || len(r.Findings.Resolved) > 0
}

// writeJSON writes the report as one indented JSON object.
func (r *DiffReport) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// maxListed is how many objects of one kind a person sees in a row before
// the rest is counted: after an HNS restart hundreds of endpoints are gone,
// and the JSON lists each.
const maxListed = 5

// diffRow is one line of the human reports: a change, or a group of
// like changes summarized.
type diffRow struct {
	Change string // added, removed, changed, recreated
	Object string
	Detail string
}

var kindLabels = map[string][2]string{ // singular, plural
	diff.KindNetwork:           {"network", "networks"},
	diff.KindRemoteSubnetRoute: {"RemoteSubnetRoute", "RemoteSubnetRoutes"},
	diff.KindEndpoint:          {"endpoint", "endpoints"},
	diff.KindLoadBalancer:      {"load balancer", "load balancers"},
	diff.KindVFPPort:           {"VFP port", "VFP ports"},
	diff.KindVFPLayer:          {"VFP layer", "VFP layers"},
	diff.KindVFPRule:           {"VFP rule", "VFP rules"},
	diff.KindAdapter:           {"adapter", "adapters"},
	diff.KindHostRoute:         {"host route", "host routes"},
	diff.KindKubeProxy:         {"kube-proxy", "kube-proxy flags"},
	diff.KindCNIConfig:         {"CNI config", "CNI configs"},
	diff.KindOS:                {"OS", "OS"},
	diff.KindHotfix:            {"hotfix", "hotfixes"},
}

func kindLabel(kind string, n int) string {
	l, ok := kindLabels[kind]
	if !ok {
		return kind
	}
	if n == 1 {
		return l[0]
	}
	return l[1]
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func changeRow(c diff.Change) diffRow {
	obj := kindLabel(c.Kind, 1)
	if c.Name != "" && c.Kind != diff.KindKubeProxy {
		obj += " " + c.Name
	}
	if c.Parent != "" {
		obj += " (" + c.Parent + ")"
	}
	var detail string
	switch {
	case c.Change == diff.Recreated:
		detail = fmt.Sprintf("new ID %s (was %s)", c.New, c.Old)
	case c.Kind == diff.KindKubeProxy && c.Change == diff.Added:
		detail = c.Field + "=" + c.New
	case c.Kind == diff.KindKubeProxy && c.Change == diff.Removed:
		detail = c.Field + "=" + c.Old
	case c.Change == diff.Changed:
		detail = fmt.Sprintf("%s: %s → %s", c.Field, orNone(c.Old), orNone(c.New))
	}
	if c.Detail != "" {
		detail = strings.TrimPrefix(detail+"; "+c.Detail, "; ")
	}
	// A VFP rule's or layer's ID is its port, which Parent names already.
	if c.ID != "" && c.Change != diff.Recreated && c.Change != diff.Changed && c.ID != c.Name && c.Kind != diff.KindVFPRule && c.Kind != diff.KindVFPLayer {
		detail = strings.TrimPrefix(detail+"; ID "+c.ID, "; ")
	}
	return diffRow{Change: string(c.Change), Object: obj, Detail: detail}
}

// diffRows turns the changes into rows: a run of more than maxListed
// objects of one kind added or removed in one place becomes one row with
// the count and the first few.
func diffRows(changes []diff.Change) []diffRow {
	var rows []diffRow
	for i := 0; i < len(changes); {
		c := changes[i]
		j := i + 1
		if c.Change == diff.Added || c.Change == diff.Removed {
			for j < len(changes) && changes[j].Kind == c.Kind && changes[j].Change == c.Change && changes[j].Parent == c.Parent && changes[j].Field == c.Field {
				j++
			}
		}
		if j-i <= maxListed {
			for _, x := range changes[i:j] {
				rows = append(rows, changeRow(x))
			}
			i = j
			continue
		}
		obj := fmt.Sprintf("%d %s", j-i, kindLabel(c.Kind, j-i))
		if c.Parent != "" {
			obj += " (" + c.Parent + ")"
		}
		var names []string
		for _, x := range changes[i : i+3] {
			names = append(names, x.Name)
		}
		rows = append(rows, diffRow{Change: string(c.Change), Object: obj,
			Detail: fmt.Sprintf("%s and %d more (-o json lists each)", strings.Join(names, ", "), j-i-3)})
		i = j
	}
	return rows
}

// diffSummary is the closing line: what changed, in counts.
func diffSummary(r *DiffReport) string {
	changes := "no changes"
	switch n := len(r.Changes); {
	case n == 1:
		changes = "1 change"
	case n > 1:
		changes = fmt.Sprintf("%d changes", n)
	}
	return fmt.Sprintf("%s · findings: %d new, %d resolved, %d persisting", changes,
		len(r.Findings.New), len(r.Findings.Resolved), len(r.Findings.Persisting))
}

func sideLine(label string, s DiffSide) string {
	line := fmt.Sprintf("%s: %s", label, s.Path)
	var about []string
	if s.Format != "" {
		about = append(about, s.Format)
	}
	if s.Collected != nil {
		about = append(about, "collected "+s.Collected.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if len(about) > 0 {
		line += " (" + strings.Join(about, ", ") + ")"
	}
	return line
}

func diffNode(r *DiffReport) string {
	switch {
	case r.New.Node != "" && r.Old.Node != "" && !strings.EqualFold(r.Old.Node, r.New.Node):
		return r.Old.Node + " → " + r.New.Node
	case r.New.Node != "":
		return r.New.Node
	case r.Old.Node != "":
		return r.Old.Node
	}
	return "(node unknown)"
}
