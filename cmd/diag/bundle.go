package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/bundle"
)

func newBundleCommand(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:     "bundle",
		Short:   "Work with bundle files",
		Long:    "bundle groups commands that check bundles and remove secrets from them." + exitStatusCommon,
		Example: "  diag bundle verify diag-win-1-20261122T0500Z.zip\n  diag bundle redact diag-win-1-20261122T0500Z.zip",
		Args:    subcommandArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return usageErrorf("%s needs a subcommand (see %s --help)", c.CommandPath(), c.CommandPath())
		},
	}
	c.AddCommand(&cobra.Command{
		Use:   "verify BUNDLE",
		Short: "Check every entry of a bundle against its manifest checksums",
		Long: `verify recomputes the SHA-256 and size of every entry of a bundle and compares them with
manifest.json; it lists entries missing from either side, and checks the zip against its
sidecar <bundle>.sha256 when one is next to it. A manifest that lists no files (a bundle put
together by hand) leaves nothing to verify, and says so.` + exitStatusCommon + `
  3  the bundle does not match its manifest or sidecar (each difference is listed)`,
		Example: `  diag bundle verify diag-win-1-20261122T0500Z.zip`,
		Args:    func(c *cobra.Command, args []string) error { return exactlyOne(c, args, "a bundle") },
		RunE: func(c *cobra.Command, args []string) error {
			b, err := bundle.Open(args[0], bundle.DefaultLimits)
			if err != nil {
				return err
			}
			defer b.Close()
			problems, err := bundle.Verify(b)
			if err != nil {
				return err
			}
			if len(problems) == 0 && bundle.Unlisted(b) {
				// Not corrupt: nothing to check the entries against.
				_, err := fmt.Fprintf(e.stdout, "%s: nothing verified: its manifest lists no files (a bundle put together by hand), so the %d entries have no checksums to match; the sidecar, if any, was checked\n", args[0], len(b.Names())-1)
				return err
			}
			if len(problems) == 0 {
				_, err := fmt.Fprintf(e.stdout, "%s: ok, %d entries match the manifest\n", args[0], len(b.Manifest.Files))
				return err
			}
			var lines []string
			for _, p := range problems {
				lines = append(lines, "  "+p.String())
			}
			fmt.Fprintf(e.stdout, "%s: %d problem(s)\n%s\n", args[0], len(problems), strings.Join(lines, "\n"))
			return &exitError{code: exitFindings, err: fmt.Errorf("%s does not match its manifest: %d problem(s), listed above", args[0], len(problems))}
		},
	})
	c.AddCommand(newBundleRedactCommand(e))
	c.AddCommand(newBundleAnonymizeCommand(e))
	c.AddCommand(newBundleKeyCommand(e))
	return c
}

func exactlyOne(c *cobra.Command, args []string, what string) error {
	if len(args) != 1 {
		return usageErrorf("%s needs exactly one argument, %s (got %d)", c.CommandPath(), what, len(args))
	}
	return nil
}
