package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/wincni/diag/finding"
)

// TableOptions are decided by the caller, who knows the terminal.
type TableOptions struct {
	Color bool // ANSI colour: only on a terminal, and never with NO_COLOR
	Width int  // wrap to this many columns; 0 means 100
	// ShowSkipped lists every skipped rule with its reason; by default one
	// line says how many were skipped, so a paste's dozens of skips do not
	// bury its findings.
	ShowSkipped bool
}

type palette struct {
	sev map[finding.Severity]*color.Color
}

func newPalette(on bool) palette {
	p := palette{sev: map[finding.Severity]*color.Color{
		finding.Fail:  color.New(color.FgRed, color.Bold),
		finding.Warn:  color.New(color.FgYellow, color.Bold),
		finding.Info:  color.New(color.FgCyan),
		finding.Error: color.New(color.FgMagenta, color.Bold),
		finding.Skip:  color.New(color.Faint),
	}}
	for _, c := range p.sev {
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

func (p palette) severity(s finding.Severity) string {
	return p.sev[s].Sprint(strings.ToUpper(s.String()))
}

// writeTable writes the findings grouped by node, worst first, each with its
// fix, then the evidence and a summary line.
func (r *Report) writeTable(w io.Writer, opts TableOptions) error {
	if opts.Width <= 0 {
		opts.Width = 100
	}
	pal := newPalette(opts.Color)
	ew := &errWriter{w: w}
	groups := make([]Input, 0, len(r.Inputs)+1)
	groups = append(groups, r.Inputs...)
	if len(r.findingsOf("")) > 0 {
		groups = append(groups, Input{Node: "cluster", Path: "all inputs"}) // cross-node findings
	}
	for i, in := range groups {
		if i > 0 {
			ew.printf("\n")
		}
		mine := r.findingsOf(in.Path)
		if in.Path == "all inputs" {
			mine = r.findingsOf("")
		}
		ew.printf("%s\n", heading(in))
		// What the reader repaired or read only in part comes first: it
		// bounds what the findings below can say.
		for _, n := range in.Notes {
			ew.printf("%s\n", hangingWrap("read: "+n, "  ", "    ", opts.Width))
		}
		if len(mine) == 0 {
			ew.printf("  no findings\n")
			if line := r.checkedLine(in); line != "" {
				ew.printf("%s\n", hangingWrap(line, "  ", "    ", opts.Width))
			}
			continue
		}
		labels := findingLabels(mine)
		if err := findingsTable(ew, mine, r.Findings, labels, pal, opts); err != nil {
			return err
		}
		for i, f := range mine {
			if len(f.Evidence) == 0 {
				continue
			}
			ew.printf("  %s evidence:\n", labels[i])
			for _, e := range f.Evidence {
				ew.printf("%s\n", hangingWrap(evidenceLine(e), "    - ", "      ", opts.Width))
			}
		}
	}
	ew.printf("\n%s\n", summaryLine(r, pal))
	for _, n := range r.Notes {
		ew.printf("%s\n", hangingWrap("note: "+n, "  ", "    ", opts.Width))
	}
	if opts.ShowSkipped {
		for _, s := range r.Skipped {
			ew.printf("%s\n", hangingWrap(fmt.Sprintf("skipped %s on %s: %s", s.ID, s.Node, s.Reason), "  ", "    ", opts.Width))
		}
	} else if len(r.Skipped) > 0 {
		ew.printf("%s\n", hangingWrap(skippedSummary(r), "  ", "    ", opts.Width))
	}
	for _, in := range r.Inputs {
		for _, c := range in.CollectorsFailed {
			ew.printf("  collector %s on %s: %s %s\n", c.ID, in.Node, c.Status, c.Error)
		}
	}
	return ew.err
}

// findingLabels names each finding in its table: its rule ID, numbered
// (XN-03 #1, XN-03 #2) where one rule found several things, so that each
// evidence list below names its row.
func findingLabels(fs []finding.Finding) []string {
	count := map[string]int{}
	for _, f := range fs {
		count[f.ID]++
	}
	seen := map[string]int{}
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
		if count[f.ID] > 1 {
			seen[f.ID]++
			out[i] = fmt.Sprintf("%s #%d", f.ID, seen[f.ID])
		}
	}
	return out
}

func findingsTable(w io.Writer, fs, all []finding.Finding, labels []string, pal palette, opts TableOptions) error {
	style := tw.StyleASCII
	if opts.Color {
		style = tw.StyleLight
	}
	idw := 8 // fits the usual IDs (OVL-01) with padding
	for _, l := range labels {
		idw = max(idw, len(l)+2)
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(style)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithTrimSpace(tw.Off),
		// Fixed widths (padding included): SEVERITY and RULE never wrap;
		// FINDING takes the rest but the four borders.
		tablewriter.WithColumnWidths(tw.NewMapper[int, int]().Set(0, 10).Set(1, idw).Set(2, max(opts.Width-14-idw, 30))),
	)
	t.Header("SEVERITY", "RULE", "FINDING")
	for i, f := range fs {
		text := f.Summary
		if f.Remediation != "" {
			text += "\nFix: " + f.Remediation
		}
		text += causeLines(f, all, "\n")
		if err := t.Append(pal.severity(f.Severity), labels[i], text); err != nil {
			return err
		}
	}
	return t.Render()
}

func heading(in Input) string {
	name := in.Node
	if name == "" || name == in.Path {
		name = "(node unknown)"
	}
	return fmt.Sprintf("%s  [%s]", name, in.Path)
}

func evidenceLine(e finding.Evidence) string {
	var parts []string
	for _, p := range []string{e.File, e.Object} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	val := e.Field
	if e.Value != "" {
		if val != "" {
			val += " = "
		}
		val += e.Value
	}
	if e.Expected != "" {
		val += " (expected " + e.Expected + ")"
	}
	if val != "" {
		parts = append(parts, val)
	}
	line := strings.Join(parts, " · ")
	if e.Note != "" {
		line += " — " + e.Note
	}
	return line
}

func summaryLine(r *Report, pal palette) string {
	s := r.Summary
	parts := []string{
		pal.count(finding.Fail, s.Fail), pal.count(finding.Warn, s.Warn), pal.count(finding.Info, s.Info),
	}
	if s.Error > 0 {
		parts = append(parts, pal.count(finding.Error, s.Error))
	}
	line := strings.Join(parts, ", ")
	line += fmt.Sprintf(" · %d node(s)", len(r.Inputs))
	switch s.Skipped {
	case 0:
	case 1:
		line += " · 1 rule skipped"
	default:
		line += fmt.Sprintf(" · %d rules skipped", s.Skipped)
	}
	return line
}

// skippedSummary says in one line which rule families were skipped for
// missing inputs, so a report with no findings does not read as "all checked".
func skippedSummary(r *Report) string {
	ids := make([]string, 0, len(r.Skipped))
	for _, s := range r.Skipped {
		ids = append(ids, s.ID)
	}
	return fmt.Sprintf("%d %s not run for want of their inputs (%s); --show-skipped lists each with the input it needs",
		len(r.Skipped), plural(len(r.Skipped), "rule", "rules"), families(ids))
}

func (p palette) count(s finding.Severity, n int) string {
	text := fmt.Sprintf("%d %s", n, s)
	if n == 0 {
		return text
	}
	return p.sev[s].Sprint(text)
}

// errWriter keeps the first write error so the renderer can print freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}

// hangingWrap wraps text to width: the first line after first, the others
// after rest.
func hangingWrap(text, first, rest string, width int) string {
	var b strings.Builder
	prefix, line := first, ""
	flush := func() {
		b.WriteString(prefix + line)
		prefix, line = "\n"+rest, ""
	}
	for _, w := range strings.Fields(text) {
		if line != "" && len(prefix)+len(line)+1+len(w) > width {
			flush()
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		flush()
	}
	return b.String()
}

// causeLines ties a finding to its cause, or its cause to what it explains,
// each line after sep.
func causeLines(f finding.Finding, all []finding.Finding, sep string) string {
	var out string
	if f.Cause != nil {
		out += sep + "Explained by " + f.Cause.String() + ": fix that first."
	}
	if refs := finding.Explains(f, all); len(refs) > 0 {
		out += sep + "Explains: " + finding.JoinRefs(refs) + "."
	}
	return out
}
