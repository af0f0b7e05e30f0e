package report

import (
	"io"
	"strings"

	"github.com/fatih/color"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/wincni/diag/finding"
)

// writeTable writes the diff for a terminal: the changes, then the
// findings new, resolved and persisting, then the notes and one line of
// counts.
func (r *DiffReport) writeTable(w io.Writer, opts TableOptions) error {
	if opts.Width <= 0 {
		opts.Width = 100
	}
	pal := newPalette(opts.Color)
	ew := &errWriter{w: w}
	ew.printf("%s\n", diffNode(r))
	ew.printf("%s\n", hangingWrap(sideLine("OLD", r.Old), "  ", "    ", opts.Width))
	ew.printf("%s\n", hangingWrap(sideLine("NEW", r.New), "  ", "    ", opts.Width))
	if len(r.Changes) == 0 {
		ew.printf("\nno changes\n")
	} else {
		ew.printf("\nChanges:\n")
		if err := changesTable(ew, diffRows(r.Changes), opts); err != nil {
			return err
		}
	}
	sections := []struct {
		title    string
		fs       []finding.Finding
		evidence bool
	}{
		{"New findings", r.Findings.New, true},
		{"Resolved findings", r.Findings.Resolved, false},
	}
	for _, s := range sections {
		if len(s.fs) == 0 {
			continue
		}
		ew.printf("\n%s:\n", s.title)
		labels := findingLabels(s.fs)
		if err := findingsTable(ew, s.fs, s.fs, labels, pal, opts); err != nil {
			return err
		}
		if !s.evidence {
			continue
		}
		for i, f := range s.fs {
			if len(f.Evidence) == 0 {
				continue
			}
			ew.printf("  %s evidence:\n", labels[i])
			for _, e := range f.Evidence {
				ew.printf("%s\n", hangingWrap(evidenceLine(e), "    - ", "      ", opts.Width))
			}
		}
	}
	if len(r.Findings.Persisting) > 0 {
		ew.printf("\nPersisting findings:\n")
		for _, f := range r.Findings.Persisting {
			ew.printf("%s\n", hangingWrap(pal.severity(f.Severity)+" "+f.ID+": "+f.Summary, "  ", "    ", opts.Width))
		}
	}
	ew.printf("\n%s\n", diffSummary(r))
	for _, n := range r.Notes {
		ew.printf("%s\n", hangingWrap("note: "+n, "  ", "    ", opts.Width))
	}
	return ew.err
}

// changeColors mark what went away red and what came green, as diff(1)
// front ends do.
func changeColors(on bool) map[string]*color.Color {
	m := map[string]*color.Color{
		"added":     color.New(color.FgGreen),
		"removed":   color.New(color.FgRed, color.Bold),
		"changed":   color.New(color.FgYellow),
		"recreated": color.New(color.FgYellow, color.Bold),
	}
	for _, c := range m {
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return m
}

func changesTable(w io.Writer, rows []diffRow, opts TableOptions) error {
	style := tw.StyleASCII
	if opts.Color {
		style = tw.StyleLight
	}
	rest := max(opts.Width-11-4, 40) // CHANGE and the borders
	objw := rest * 2 / 5
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(style)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithColumnWidths(tw.NewMapper[int, int]().Set(0, 11).Set(1, objw).Set(2, rest-objw)),
	)
	t.Header("CHANGE", "OBJECT", "DETAIL")
	colors := changeColors(opts.Color)
	for _, r := range rows {
		// Cells are wrapped here: tablewriter cuts a word longer than its
		// column (VFP rule names are), this breaks it.
		if err := t.Append(colors[r.Change].Sprint(r.Change), cellWrap(r.Object, objw-2), cellWrap(r.Detail, rest-objw-2)); err != nil {
			return err
		}
	}
	return t.Render()
}

// cellWrap wraps text at spaces to width, breaking only words longer than
// a whole line.
func cellWrap(text string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		for len([]rune(w)) > width {
			if line != "" {
				lines, line = append(lines, line), ""
			}
			r := []rune(w)
			lines, w = append(lines, string(r[:width])), string(r[width:])
		}
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) > width:
			lines, line = append(lines, line), w
		default:
			line += " " + w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
