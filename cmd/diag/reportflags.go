package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/report"
)

// reportFlags are the flags of every command that renders a report: the
// format, the file it goes to, whether that file may be replaced and, for
// the commands that judge (analyze, capture decode), the severity that
// fails the run.
type reportFlags struct {
	output     string
	outputFile string
	force      bool
	failOn     string

	// What validate read from them.
	format   report.Format
	severity finding.Severity // --fail-on
}

// addReportFlags registers them on c; withFailOn adds --fail-on.
func addReportFlags(c *cobra.Command, r *reportFlags, withFailOn bool) {
	f := c.Flags()
	f.StringVarP(&r.output, "output", "o", "table", "report format: table, markdown, json or html")
	foldCase(f, "output")
	f.StringVar(&r.outputFile, "output-file", "", "write the report to this file instead of standard output")
	f.BoolVar(&r.force, "force", false, "replace --output-file if it exists")
	c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.FormatNames(), cobra.ShellCompDirectiveNoFileComp))
	if withFailOn {
		f.StringVar(&r.failOn, "fail-on", "fail", "exit 3 when a finding is at or above this severity: fail, warn, info, or never")
		c.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"fail", "warn", "info", "never"}, cobra.ShellCompDirectiveNoFileComp))
	}
}

// validate reads them before any work: the format, an output file that
// must not be replaced (or is a directory) refused and, for the commands
// that judge, --fail-on.
func (r *reportFlags) validate(judged bool) error {
	format, err := report.ParseFormat(r.output)
	if err != nil {
		return usageErrorf("--output %v", err)
	}
	r.format = format
	if err := refuseExisting("--output-file", r.outputFile, r.force); err != nil {
		return err
	}
	if judged {
		r.severity, err = parseFailOn(r.failOn)
	}
	return err
}

// write renders d in the format validated to the file the flags name, or
// standard output, in colour where that is a terminal that wants it.
func (r *reportFlags) write(e *env, g *globalOptions, d report.Document, opts report.TableOptions) error {
	opts.Color, opts.Width = e.useColor(g.color, r.outputFile != ""), e.width()
	return streamOutput(e.reportOut(r.output), r.outputFile, func(w io.Writer) error {
		return report.Render(w, d, r.format, opts)
	})
}
