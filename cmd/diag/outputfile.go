package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// outputFileFlag registers --output-file, where a command that writes a
// file (collect, bundle redact) writes it. Everywhere else in diag, and in
// kubectl, -o is the output format; these commands once took -o/--output
// for the file, which still works with a deprecation notice on stderr. The
// old spelling lands in legacy, so that a command giving -o a meaning of
// its own (collect --cluster: the report's format) can tell them apart.
func outputFileFlag(c *cobra.Command, dst, legacy *string, usage string) {
	f := c.Flags()
	f.StringVar(dst, "output-file", "", usage)
	f.StringVarP(legacy, "output", "o", "", usage)
	_ = f.MarkHidden("output")
}

// checkOutputFileFlags refuses the old and the new spelling together, says
// on stderr that the old one is deprecated (pflag's own notice would go to
// standard output, where the bundle's path goes) and moves it to dst.
func checkOutputFileFlags(c *cobra.Command, dst, legacy *string) error {
	f := c.Flags()
	if !f.Changed("output") {
		return nil
	}
	if f.Changed("output-file") {
		return usageErrorf("give --output-file only (-o/--output is its old spelling)")
	}
	fmt.Fprintf(c.ErrOrStderr(), "%s: -o/--output is deprecated, use --output-file (-o is the report format in the other diag commands)\n", c.CommandPath())
	*dst = *legacy
	return nil
}
