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

// check reads them before any work: the format, and an output file that
// must not be replaced (or is a directory) refused.
func (r *reportFlags) check() (report.Format, error) {
	format, err := report.ParseFormat(r.output)
	if err != nil {
		return format, usageErrorf("--output %v", err)
	}
	return format, refuseExisting("--output-file", r.outputFile, r.force)
}

// write renders d in format to the file the flags name, or standard
// output, in colour where that is a terminal that wants it.
func (r *reportFlags) write(e *env, g *globalOptions, d report.Document, format report.Format, opts report.TableOptions) error {
	opts.Color, opts.Width = e.useColor(g.color, r.outputFile != ""), e.width()
	return streamOutput(e.reportOut(r.output), r.outputFile, func(w io.Writer) error {
		return report.Render(w, d, format, opts)
	})
}

// checkJudged is check and --fail-on read, for the commands that judge.
func (r *reportFlags) checkJudged() (report.Format, finding.Severity, error) {
	format, err := r.check()
	if err != nil {
		return format, 0, err
	}
	failOn, err := parseFailOn(r.failOn)
	return format, failOn, err
}
