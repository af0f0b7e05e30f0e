package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// outputFileFlag registers --output-file, where a command that writes a
// file (collect, bundle redact) writes it. Everywhere else in diag, and in
// kubectl, -o is the output format; these commands once took -o/--output
// for the file, which still works with a deprecation notice on stderr.
func outputFileFlag(c *cobra.Command, dst *string, usage string) {
	f := c.Flags()
	f.StringVar(dst, "output-file", "", usage)
	f.StringVarP(dst, "output", "o", "", usage)
	_ = f.MarkHidden("output")
}

// checkOutputFileFlags refuses the old and the new spelling together and
// says on stderr that the old one is deprecated (pflag's own notice would
// go to standard output, where the bundle's path goes).
func checkOutputFileFlags(c *cobra.Command) error {
	f := c.Flags()
	if !f.Changed("output") {
		return nil
	}
	if f.Changed("output-file") {
		return usageErrorf("give --output-file only (-o/--output is its old spelling)")
	}
	fmt.Fprintf(c.ErrOrStderr(), "%s: -o/--output is deprecated, use --output-file (-o is the report format in the other diag commands)\n", c.CommandPath())
	return nil
}
