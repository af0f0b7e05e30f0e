package report

import (
	_ "embed"
	"html/template"
	"io"
	"sync"
)

//go:embed diff.tmpl
var diffHTMLSource string

// Parsed on first use, not at every start of diag.
var diffHTMLTemplate = sync.OnceValue(func() *template.Template { return parseHTML("diff", diffHTMLSource) })

type diffHTMLView struct {
	R       *DiffReport
	Node    string
	OldLine string
	NewLine string
	Summary string
	Rows    []diffRow
}

// writeHTML writes the diff as one self-contained HTML file, styled
// like the analyze report; html/template escapes what comes from inputs.
func (r *DiffReport) writeHTML(w io.Writer) error {
	return diffHTMLTemplate().Execute(w, diffHTMLView{R: r, Node: diffNode(r), OldLine: sideLine("OLD", r.Old),
		NewLine: sideLine("NEW", r.New), Summary: diffSummary(r), Rows: diffRows(r.Changes)})
}
