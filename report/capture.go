package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/finding"
)

// CaptureReport is what `diag capture decode` renders.
type CaptureReport struct {
	SchemaVersion int        `json:"schemaVersion"`
	Tool          Tool       `json:"tool"`
	GeneratedAt   *time.Time `json:"generatedAt,omitempty"`
	*capture.Report
}

// NewCaptureReport wraps a capture analysis for the renderers.
func NewCaptureReport(tool Tool, now *time.Time, r *capture.Report) *CaptureReport {
	return &CaptureReport{SchemaVersion: SchemaVersion, Tool: tool, GeneratedAt: now, Report: r}
}

// writeJSON writes {"schemaVersion":1, "packets":..., "vxlanPackets":...,
// "tunnels":[...], "flows":[...], "findings":[...], ...}.
//
// A capture can hold hundreds of thousands of flows: the JSON is written
// compact, one object on one line (pipe it through jq to read it).
//
// The flows are written one at a time by Flow.AppendJSON, the rest by
// encoding/json, into the place its encoding of the report without flows
// leaves for them: the bytes are those of encoding the report whole
// (TestCaptureJSONStreamed), without building them all in memory first.
func (r *CaptureReport) writeJSON(w io.Writer) error {
	// No flows list (null) or a flow encoding/json refuses: encoding/json
	// writes it, or refuses before anything is written.
	if r.Report == nil || r.Flows == nil || slices.ContainsFunc(r.Flows, func(fl *capture.Flow) bool { return !fl.JSONEncodable() }) {
		return writeJSONLine(w, r)
	}
	rest, noFlows := *r, *r.Report
	noFlows.Flows = []*capture.Flow{}
	rest.Report = &noFlows
	var head bytes.Buffer
	if err := writeJSONLine(&head, &rest); err != nil {
		return err
	}
	// "flows" is Result's key alone, and a quote inside a string is
	// escaped: the first match is the place.
	mark := []byte(`,"flows":[]`)
	at := bytes.Index(head.Bytes(), mark)
	if at < 0 {
		return fmt.Errorf("capture report: no flows list in its JSON")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head.Bytes()[:at])
	bw.WriteString(`,"flows":[`)
	buf := make([]byte, 0, 512)
	for i, fl := range r.Flows {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = fl.AppendJSON(buf); err != nil {
			return fmt.Errorf("flow %d: %w", i+1, err)
		}
		bw.Write(buf)
	}
	bw.WriteByte(']')
	bw.Write(head.Bytes()[at+len(mark):])
	return bw.Flush()
}

// writeJSONLine writes v as one line, HTML characters not escaped.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// listedFlows are the flows a person wants to see: every one in trouble,
// then the busiest, at most max.
func listedFlows(r *capture.Report, max int) []*capture.Flow {
	var out []*capture.Flow
	for _, fl := range r.Flows {
		if fl.State == "syn-sent" || fl.State == "reset" {
			out = append(out, fl)
		}
	}
	for _, fl := range r.Flows {
		if len(out) >= max {
			break
		}
		if fl.State != "syn-sent" && fl.State != "reset" {
			out = append(out, fl)
		}
	}
	if len(out) > max {
		out = out[:max]
	}
	return out
}

func captureSummary(r *CaptureReport) string {
	var files []string
	for _, f := range r.Files {
		files = append(files, fmt.Sprintf("%s (%s, %d packets)", f.Path, f.Format, f.Packets))
	}
	return fmt.Sprintf("%s · %d packets, %d VXLAN in %d tunnel(s), %d inner flow(s) · %d truncated · %d duplicate copies",
		strings.Join(files, ", "), r.Packets, r.VXLANPackets, len(r.Tunnels), len(r.Flows), r.Truncated, r.Duplicates)
}

func plainTable(w io.Writer, width int, header []string, rows [][]string) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithMaxWidth(width),
	)
	h := make([]any, len(header))
	for i, x := range header {
		h[i] = x
	}
	t.Header(h...)
	for _, row := range rows {
		r := make([]any, len(row))
		for i, x := range row {
			r[i] = x
		}
		if err := t.Append(r...); err != nil {
			return err
		}
	}
	return t.Render()
}

func tunnelRows(r *CaptureReport, max int) [][]string {
	var rows [][]string
	for i, t := range r.Tunnels {
		if i == max {
			break
		}
		rows = append(rows, []string{t.Src.String(), t.Dst.String(), strconv.FormatUint(uint64(t.VNI), 10), strconv.FormatInt(t.Packets, 10), strconv.FormatInt(t.Bytes, 10)})
	}
	return rows
}

func flowRows(r *CaptureReport, max int) [][]string {
	var rows [][]string
	for _, fl := range listedFlows(r.Report, max) {
		src, dst := fl.Src.String(), fl.Dst.String()
		if fl.SrcPort != 0 || fl.DstPort != 0 {
			src, dst = src+":"+strconv.Itoa(int(fl.SrcPort)), dst+":"+strconv.Itoa(int(fl.DstPort))
		}
		rows = append(rows, []string{src, dst, fl.Proto, strconv.FormatUint(uint64(fl.VNI), 10), strconv.FormatInt(fl.Packets, 10), fl.State,
			fl.TunnelSrc.String() + " → " + fl.TunnelDst.String()})
	}
	return rows
}

// writeTable writes the findings first, then tunnels and flows.
func (r *CaptureReport) writeTable(w io.Writer, opts TableOptions) error {
	if opts.Width <= 0 {
		opts.Width = 100
	}
	ew := &errWriter{w: w}
	pal := newPalette(opts.Color)
	ew.printf("%s\n", hangingWrap(captureSummary(r), "", "  ", opts.Width))
	if len(r.Findings) > 0 {
		labels := findingLabels(r.Findings)
		if err := findingsTable(ew, r.Findings, r.Findings, labels, pal, opts); err != nil {
			return err
		}
		for k, f := range r.Findings {
			ew.printf("  %s evidence:\n", labels[k])
			for i, e := range f.Evidence {
				if i == 10 {
					ew.printf("    - and %d more (-o json has them all)\n", len(f.Evidence)-10)
					break
				}
				ew.printf("%s\n", hangingWrap(evidenceLine(e), "    - ", "      ", opts.Width))
			}
		}
	} else {
		ew.printf("  no findings\n")
	}
	if len(r.Tunnels) > 0 {
		ew.printf("\nTunnels (busiest %d):\n", min(len(r.Tunnels), 20))
		if err := plainTable(ew, opts.Width, []string{"OUTER SRC", "OUTER DST", "VNI", "PACKETS", "BYTES"}, tunnelRows(r, 20)); err != nil {
			return err
		}
	}
	if len(r.Flows) > 0 {
		ew.printf("\nInner flows (stalled and reset first, then the busiest; %d in all):\n", len(r.Flows))
		if err := plainTable(ew, opts.Width, []string{"SRC", "DST", "PROTO", "VNI", "PACKETS", "STATE", "TUNNEL"}, flowRows(r, 20)); err != nil {
			return err
		}
	}
	if err := writeETLTable(ew, r, opts.Width); err != nil { // capture_etl.go
		return err
	}
	ew.printf("\n%s\n", captureCounts(r, pal))
	for _, s := range r.Skipped {
		ew.printf("  skipped %s: %s\n", s.ID, s.Reason)
	}
	for _, n := range r.Notes {
		ew.printf("%s\n", hangingWrap(n, "  note: ", "        ", opts.Width))
	}
	return ew.err
}

func captureCounts(r *CaptureReport, pal palette) string {
	counts := map[finding.Severity]int{}
	for _, f := range r.Findings {
		counts[f.Severity]++
	}
	line := strings.Join([]string{pal.count(finding.Fail, counts[finding.Fail]), pal.count(finding.Warn, counts[finding.Warn]), pal.count(finding.Info, counts[finding.Info])}, ", ")
	if n := len(r.Skipped); n > 0 {
		line += fmt.Sprintf(" · %d rule(s) skipped", n)
	}
	return line
}

// writeMarkdown writes the capture report for a ticket.
func (r *CaptureReport) writeMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("## diag capture report\n\n%s\n\n", mdText(captureSummary(r)))
	if len(r.Findings) == 0 {
		ew.printf("No findings.\n")
	} else {
		ew.printf("| Severity | Rule | Finding |\n|---|---|---|\n")
		for _, f := range r.Findings {
			ew.printf("| %s | %s | %s |\n", severityLabel(f.Severity), f.ID, mdCell(f.Summary))
		}
		for _, f := range r.Findings {
			ew.printf("\n### %s %s: %s\n\n%s\n\n**Fix:** %s\n\n", severityLabel(f.Severity), f.ID, mdText(f.Title), mdText(f.Summary), mdText(f.Remediation))
			ew.printf("<details>\n<summary>Evidence (%d)</summary>\n\n| Object | Field | Value | Expected | Note |\n|---|---|---|---|---|\n", len(f.Evidence))
			for _, e := range f.Evidence {
				ew.printf("| %s | %s | %s | %s | %s |\n", mdCell(e.Object), mdCell(e.Field), mdCodeCell(e.Value), mdCodeCell(e.Expected), mdCell(e.Note))
			}
			ew.printf("\n</details>\n")
		}
	}
	if len(r.Tunnels) > 0 {
		ew.printf("\n<details>\n<summary>Tunnels (%d)</summary>\n\n| Outer src | Outer dst | VNI | Packets | Bytes |\n|---|---|---|---|---|\n", len(r.Tunnels))
		for _, row := range tunnelRows(r, 50) {
			ew.printf("| %s |\n", strings.Join(row, " | "))
		}
		ew.printf("\n</details>\n")
	}
	if len(r.Flows) > 0 {
		ew.printf("\n<details>\n<summary>Inner flows (%d; stalled and reset first)</summary>\n\n| Src | Dst | Proto | VNI | Packets | State | Tunnel |\n|---|---|---|---|---|---|---|\n", len(r.Flows))
		for _, row := range flowRows(r, 50) {
			ew.printf("| %s |\n", strings.Join(row, " | "))
		}
		ew.printf("\n</details>\n")
	}
	writeETLMarkdown(ew, r) // capture_etl.go
	for _, n := range r.Notes {
		ew.printf("\n> %s\n", mdText(n))
	}
	return ew.err
}

// maxHTMLRows bounds the capture HTML's tables: a ticket attachment, not
// the capture itself.
const maxHTMLRows = 200

// writeHTML writes the capture's findings, tunnels and flows as one
// self-contained HTML file (the overlay picture needs bundles, so it has
// none).
func (r *CaptureReport) writeHTML(w io.Writer) error {
	rep := &Report{SchemaVersion: SchemaVersion, Tool: r.Tool, GeneratedAt: r.GeneratedAt, Findings: r.Findings, Skipped: r.Skipped}
	for _, f := range r.Files {
		node := ""
		if len(r.Findings) > 0 {
			node = r.Findings[0].Node
		}
		rep.Inputs = append(rep.Inputs, Input{Path: f.Path, Node: node, Kind: f.Format, Notes: r.Notes})
	}
	for _, f := range r.Findings {
		switch f.Severity {
		case finding.Fail:
			rep.Summary.Fail++
		case finding.Warn:
			rep.Summary.Warn++
		case finding.Info:
			rep.Summary.Info++
		}
	}
	rep.Summary.Skipped = len(r.Skipped)
	tables := []htmlTable{
		{Title: fmt.Sprintf("Tunnels (busiest %d of %d)", min(len(r.Tunnels), maxHTMLRows), len(r.Tunnels)),
			Header: []string{"Outer src", "Outer dst", "VNI", "Packets", "Bytes"}, Rows: tunnelRows(r, maxHTMLRows)},
		{Title: fmt.Sprintf("Inner flows (stalled and reset first, then the busiest; %d in all)", len(r.Flows)),
			Header: []string{"Src", "Dst", "Proto", "VNI", "Packets", "State", "Tunnel"}, Rows: flowRows(r, maxHTMLRows)},
	}
	tables = append(tables, etlHTMLTables(r)...) // capture_etl.go
	return writeHTML(w, rep, tables)
}
