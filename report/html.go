package report

import (
	_ "embed"
	"html/template"
	"io"
	"sort"
	"sync"

	"github.com/wincni/diag/finding"
)

//go:embed html.tmpl
var htmlSource string

// evidence.tmpl defines the evidence table both the analyze report and
// the diff show.
//
//go:embed evidence.tmpl
var evidenceSource string

// page.tmpl defines the frame and stylesheet every HTML page shares.
//
//go:embed page.tmpl
var pageSource string

var htmlFuncs = template.FuncMap{
	"f":     f,
	"about": ruleAbout,
	// explains lists the findings a finding is the cause of.
	"explains": finding.Explains,
	"add":      func(a float64, b int) float64 { return a + float64(b) },
	// hasFile says whether any evidence names a file: a capture's evidence
	// names none, and an empty File column says nothing.
	"hasFile": func(ev []finding.Evidence) bool {
		for _, e := range ev {
			if e.File != "" {
				return true
			}
		}
		return false
	},
}

// parseHTML parses a page template with the shared frame, stylesheet and
// evidence table.
func parseHTML(name, source string) *template.Template {
	t := template.Must(template.New(name).Funcs(htmlFuncs).Parse(source))
	return template.Must(template.Must(t.Parse(evidenceSource)).Parse(pageSource))
}

// Parsed on first use, not at every start of diag.
var htmlTemplate = sync.OnceValue(func() *template.Template { return parseHTML("report", htmlSource) })

type htmlView struct {
	R          *Report
	SVG        *svgView
	Severities []string
	NodeNames  []string
	Tables     []htmlTable // after the findings: a capture's tunnels and flows
	Checked    []string    // with no findings: what was checked on each input
}

// htmlTable is a plain table of text cells.
type htmlTable struct {
	Title  string
	Header []string
	Rows   [][]string
}

// writeHTML writes one self-contained HTML file: summary, the overlay as
// inline SVG with its broken parts in red, and the findings with their
// evidence. html/template escapes everything that comes from the inputs.
func (r *Report) writeHTML(w io.Writer) error { return writeHTML(w, r, nil) }

func writeHTML(w io.Writer, r *Report, tables []htmlTable) error {
	v := htmlView{R: r, SVG: layoutOverlay(r.picture()), Tables: tables}
	if len(r.Findings) == 0 {
		for _, in := range r.Inputs {
			if line := r.checkedLine(in); line != "" {
				v.Checked = append(v.Checked, in.Node+": "+line)
			}
		}
	}
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if s := f.Severity.String(); !seen["sev:"+s] {
			seen["sev:"+s] = true
			v.Severities = append(v.Severities, s)
		}
		if !seen["node:"+f.Node] {
			seen["node:"+f.Node] = true
			v.NodeNames = append(v.NodeNames, f.Node)
		}
	}
	sort.Strings(v.NodeNames)
	return htmlTemplate().Execute(w, v)
}
