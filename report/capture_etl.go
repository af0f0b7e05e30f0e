package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/wincni/diag/capture"
)

// etlHeadline sums up one pktmon ETL file in a line.
func etlHeadline(f *capture.ETLFile) string {
	s := fmt.Sprintf("pktmon ETL %s (Windows build %d): %d packet events, %d distinct packets, %d bytes logged of %d, %d drop events",
		f.Path, f.WindowsBuild, f.PacketEvents, f.Packets, f.LoggedBytes, f.OriginalBytes, f.DropEvents)
	if f.FirstPacket != "" {
		s += fmt.Sprintf(", %s to %s", f.FirstPacket, f.LastPacket)
	}
	return s
}

func etlComponentRows(f *capture.ETLFile) [][]string {
	var rows [][]string
	for _, c := range f.Components {
		desc := c.Description
		if c.VSwitch != "" {
			desc += " (vSwitch " + c.VSwitch + ")"
		}
		rows = append(rows, []string{strconv.Itoa(int(c.ID)), c.Name, desc, c.Type, strconv.FormatInt(c.Events, 10), strconv.FormatInt(c.Drops, 10)})
	}
	return rows
}

func etlDropRows(f *capture.ETLFile, max int) [][]string {
	var rows [][]string
	for _, d := range f.DropDetails {
		if len(rows) == max {
			break
		}
		rows = append(rows, []string{fmt.Sprintf("%s (%d)", d.Reason, d.ReasonCode), d.Location, d.Component,
			strconv.FormatInt(d.Events, 10), strings.Join(d.Flows, "; ")})
	}
	return rows
}

// etlPathRows names the busiest component paths, components by id.
func etlPathRows(f *capture.ETLFile, max int) [][]string {
	var rows [][]string
	for _, p := range f.Paths {
		if len(rows) == max {
			break
		}
		ids := make([]string, len(p.Components))
		for i, c := range p.Components {
			ids[i] = strconv.Itoa(int(c))
		}
		drop := ""
		if p.Dropped {
			drop = "dropped"
		}
		rows = append(rows, []string{strings.Join(ids, " → "), strconv.FormatInt(p.Packets, 10), drop})
	}
	return rows
}

// etlDropSummary lists the drop counts by reason name, largest first.
func etlDropSummary(f *capture.ETLFile) string {
	names := make([]string, 0, len(f.Drops))
	for n := range f.Drops {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if f.Drops[names[i]] != f.Drops[names[j]] {
			return f.Drops[names[i]] > f.Drops[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s ×%d", n, f.Drops[n])
	}
	return strings.Join(parts, ", ")
}

// etlHTMLTables are the HTML report's tables of each ETL file: its
// drops, components and packet paths.
func etlHTMLTables(r *CaptureReport) []htmlTable {
	var out []htmlTable
	for _, f := range r.ETL {
		head := etlHeadline(f)
		if len(f.DropDetails) > 0 {
			out = append(out, htmlTable{Title: head + " — drops (VFP and vSwitch first): " + etlDropSummary(f),
				Header: []string{"Reason", "Location", "Component", "Drop events", "Flows"}, Rows: etlDropRows(f, maxHTMLRows)})
			head = "Components of " + f.Path
		}
		out = append(out, htmlTable{Title: head + " — components with packets",
			Header: []string{"Id", "Driver", "Description", "Type", "Packet events", "Drops"}, Rows: etlComponentRows(f)})
		if len(f.Paths) > 0 {
			out = append(out, htmlTable{Title: fmt.Sprintf("Packet paths of %s (components crossed in time order, by id; busiest %d)", f.Path, min(len(f.Paths), maxHTMLRows)),
				Header: []string{"Components", "Packets", ""}, Rows: etlPathRows(f, maxHTMLRows)})
		}
	}
	return out
}

// writeETLTable writes the terminal table's part on each ETL file.
func writeETLTable(ew *errWriter, r *CaptureReport, width int) error {
	for _, f := range r.ETL {
		ew.printf("\n%s\n", hangingWrap(etlHeadline(f), "", "  ", width))
		if len(f.DropDetails) > 0 {
			ew.printf("Drops (VFP and vSwitch first):\n")
			if err := plainTable(ew, width, []string{"REASON", "LOCATION", "COMPONENT", "DROPS", "FLOWS"}, etlDropRows(f, 20)); err != nil {
				return err
			}
		}
		if len(f.Components) > 0 {
			ew.printf("Components with packets:\n")
			if err := plainTable(ew, width, []string{"ID", "DRIVER", "DESCRIPTION", "TYPE", "EVENTS", "DROPS"}, etlComponentRows(f)); err != nil {
				return err
			}
		}
	}
	return ew.err
}

// writeETLMarkdown writes each ETL file's headline, drops and
// components, folded as the tunnels and flows are.
func writeETLMarkdown(ew *errWriter, r *CaptureReport) {
	for _, f := range r.ETL {
		ew.printf("\n%s\n", mdText(etlHeadline(f)))
		if len(f.DropDetails) > 0 {
			ew.printf("\n<details open>\n<summary>Drops (%d events; VFP and vSwitch first)</summary>\n\n| Reason | Location | Component | Drop events | Flows |\n|---|---|---|---|---|\n", f.DropEvents)
			for _, row := range etlDropRows(f, 50) {
				for i := range row {
					row[i] = mdCell(row[i])
				}
				ew.printf("| %s |\n", strings.Join(row, " | "))
			}
			ew.printf("\n</details>\n")
		}
		if len(f.Components) > 0 {
			ew.printf("\n<details>\n<summary>Components with packets (%d)</summary>\n\n| Id | Driver | Description | Type | Packet events | Drops |\n|---|---|---|---|---|---|\n", len(f.Components))
			for _, row := range etlComponentRows(f) {
				for i := range row {
					row[i] = mdCell(row[i])
				}
				ew.printf("| %s |\n", strings.Join(row, " | "))
			}
			ew.printf("\n</details>\n")
		}
	}
}
