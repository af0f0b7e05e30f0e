package report

import (
	"io"

	"github.com/wincni/diag/finding"
)

// writeMarkdown writes the diff for a ticket: changes and findings as
// tables, the new findings' evidence folded.
func (r *DiffReport) writeMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("## diag diff: %s\n\n", mdText(diffNode(r)))
	ew.printf("- %s\n- %s\n\n", mdText(sideLine("OLD", r.Old)), mdText(sideLine("NEW", r.New)))
	ew.printf("%s\n", mdText(diffSummary(r)))
	if len(r.Changes) > 0 {
		ew.printf("\n### Changes\n\n| Change | Object | Detail |\n|---|---|---|\n")
		for _, row := range diffRows(r.Changes) {
			ew.printf("| %s | %s | %s |\n", row.Change, mdCell(row.Object), mdCell(row.Detail))
		}
	}
	for _, s := range []struct {
		title string
		fs    []finding.Finding
	}{{"New findings", r.Findings.New}, {"Resolved findings", r.Findings.Resolved}, {"Persisting findings", r.Findings.Persisting}} {
		if len(s.fs) == 0 {
			continue
		}
		ew.printf("\n### %s\n\n| Severity | Rule | Finding |\n|---|---|---|\n", s.title)
		for _, f := range s.fs {
			ew.printf("| %s | %s | %s |\n", severityLabel(f.Severity), f.ID, mdCell(f.Summary))
		}
	}
	for _, f := range r.Findings.New {
		ew.printf("\n#### New: %s %s\n\n**Fix:** %s\n\n", f.ID, mdText(f.Title), mdText(orDash(f.Remediation)))
		if len(f.Evidence) == 0 {
			continue
		}
		ew.printf("<details>\n<summary>Evidence (%d)</summary>\n\n| File | Object | Field | Value | Expected | Note |\n|---|---|---|---|---|---|\n", len(f.Evidence))
		for _, e := range f.Evidence {
			ew.printf("| %s | %s | %s | %s | %s | %s |\n", mdCodeCell(e.File), mdCell(e.Object), mdCell(e.Field), mdCodeCell(e.Value), mdCodeCell(e.Expected), mdCell(e.Note))
		}
		ew.printf("\n</details>\n")
	}
	if len(r.Notes) > 0 {
		ew.printf("\n### Notes\n\n")
		for _, n := range r.Notes {
			ew.printf("- %s\n", mdText(n))
		}
	}
	return ew.err
}
