package report

import (
	"io"
	"strings"

	"github.com/wincni/diag/finding"
)

// writeMarkdown writes what a person pastes into a GitHub issue or a ticket:
// a summary, a findings table, and per finding the evidence and the fix in a
// collapsible section. Text from the inputs is escaped so that it renders as
// text (a network named <script> stays visible and inert).
func (r *Report) writeMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	s := r.Summary
	ew.printf("## diag report\n\n")
	ew.printf("**%d fail**, %d warn, %d info", s.Fail, s.Warn, s.Info)
	if s.Error > 0 {
		ew.printf(", **%d error**", s.Error)
	}
	ew.printf(" · %d node(s) · %d rule(s) skipped · %s %s", len(r.Inputs), s.Skipped, mdText(r.Tool.Name), mdText(r.Tool.Version))
	if r.GeneratedAt != nil {
		ew.printf(" · %s", r.GeneratedAt.Format("2006-01-02 15:04 UTC"))
	}
	ew.printf("\n\n")
	for _, n := range r.Notes {
		ew.printf("**Note:** %s\n\n", mdText(n))
	}

	ew.printf("| Node | Input | Kind | Collectors not ok |\n|---|---|---|---|\n")
	for _, in := range r.Inputs {
		var bad []string
		for _, c := range in.CollectorsFailed {
			bad = append(bad, c.ID+": "+c.Status)
		}
		ew.printf("| %s | %s | %s | %s |\n", mdCell(in.Node), mdCode(in.Path), mdCell(in.Kind), mdCell(orDash(strings.Join(bad, ", "))))
	}
	ew.printf("\n")
	for _, in := range r.Inputs {
		if len(in.Notes) == 0 {
			continue
		}
		ew.printf("Read from %s:\n\n", mdCode(in.Path))
		for _, n := range in.Notes {
			ew.printf("- %s\n", mdText(n))
		}
		ew.printf("\n")
	}

	if len(r.Findings) == 0 {
		ew.printf("No findings.\n")
		for _, in := range r.Inputs {
			if line := r.checkedLine(in); line != "" {
				ew.printf("\n- %s: %s\n", mdCode(in.Path), mdText(line))
			}
		}
	} else {
		ew.printf("| Severity | Rule | Node | Finding |\n|---|---|---|---|\n")
		for _, f := range r.Findings {
			ew.printf("| %s | %s | %s | %s |\n", severityLabel(f.Severity), f.ID, mdCell(f.Node), mdCell(f.Summary))
		}
		for _, f := range r.Findings {
			ew.printf("\n### %s %s on %s: %s\n\n", severityLabel(f.Severity), f.ID, mdText(f.Node), mdText(f.Title))
			ew.printf("%s\n\n", mdText(f.Summary))
			if f.Remediation != "" {
				ew.printf("**Fix:** %s\n\n", mdText(f.Remediation))
			}
			if c := causeLines(f, r.Findings, "\n\n"); c != "" {
				ew.printf("%s\n\n", mdText(strings.TrimPrefix(c, "\n\n")))
			}
			if about := ruleAbout(f.ID); about != "" {
				ew.printf("*About %s:* %s\n\n", f.ID, mdText(about))
			}
			if len(f.Evidence) > 0 {
				ew.printf("<details>\n<summary>Evidence (%d)</summary>\n\n", len(f.Evidence))
				ew.printf("| File | Object | Field | Value | Expected | Note |\n|---|---|---|---|---|---|\n")
				for _, e := range f.Evidence {
					ew.printf("| %s | %s | %s | %s | %s | %s |\n", mdCodeCell(e.File), mdCell(e.Object), mdCodeCell(e.Field),
						mdCodeCell(e.Value), mdCodeCell(e.Expected), mdCell(e.Note))
				}
				ew.printf("\n</details>\n")
			}
		}
	}
	if len(r.Skipped) > 0 {
		ew.printf("\n<details>\n<summary>Rules skipped (%d)</summary>\n\n| Rule | Node | Why |\n|---|---|---|\n", len(r.Skipped))
		for _, sk := range r.Skipped {
			ew.printf("| %s | %s | %s |\n", sk.ID, mdCell(sk.Node), mdCell(sk.Reason))
		}
		ew.printf("\n</details>\n")
	}
	return ew.err
}

func severityLabel(s finding.Severity) string {
	if s == finding.Fail || s == finding.Error {
		return "**" + strings.ToUpper(s.String()) + "**"
	}
	return strings.ToUpper(s.String())
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// mdText escapes text for Markdown prose: HTML is neutralised and the
// characters that start emphasis, links or code are escaped.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`, "#", `\#`,
)

func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCell is mdText for a table cell: no line breaks.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(mdText(s), "\r", ""), "\n", "<br>")
}

// mdCode puts s in a code span; backticks inside make the fence longer.
// Pipes are escaped even there: GitHub splits table cells first.
func mdCode(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// mdCodeCell is a code span in a table cell, or nothing when empty.
func mdCodeCell(s string) string {
	if s == "" {
		return ""
	}
	return mdCode(s)
}
