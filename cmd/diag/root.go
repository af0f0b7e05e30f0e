package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

const exitStatusCommon = `

EXIT STATUS
  0  success
  1  internal error (a bug in diag; please report it)
  2  bad usage or unreadable input; the message names the file and the problem`

// globalOptions are the flags every command has.
type globalOptions struct {
	color string
}

func newRootCommand(e *env, ran *bool) *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:   "diag",
		Short: "Find out why pod and service networking is broken on a Windows Kubernetes node",
		Long: `diag collects the networking state of a Windows Kubernetes node (HNS networks, endpoints,
policies, load balancers, VFP rules, host adapters and routes, the node's Kubernetes context)
into one bundle.zip, and analyzes bundles offline on any OS: every finding has a stable
rule ID, a severity, the evidence it rests on and the fix.` + exitStatusCommon + `
  3  analyze, capture: findings at or above --fail-on; collect: a partial bundle;
     bundle verify: the bundle does not match its manifest; diff: something changed`,
		Example: `  # on the node (Administrator or HostProcess pod)
  diag collect

  # anywhere
  diag analyze diag-win-1-20261122T0500Z.zip
  diag analyze -o json --fail-on warn node1.zip node2.zip
  diag rules OVL-01`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// diag --version, as other CLIs have it (diag version says more).
		Version: toolVersion(),
	}
	root.SetVersionTemplate("diag {{.Version}}\n")
	root.PersistentFlags().StringVar(&g.color, "color", "auto", "colour output: auto, always or never (auto honours NO_COLOR and TTY detection)")
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(flagError)
	foldCase(root.PersistentFlags(), "color")
	// Command names in any case too (diag completion PowerShell), as flag
	// words and rule IDs are.
	cobra.EnableCaseInsensitive = true
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if err := foldFlagValues(c); err != nil {
			return err
		}
		switch g.color {
		case "auto", "always", "never":
		default:
			return usageErrorf("--color must be auto, always or never, not %q", g.color)
		}
		*ran = true
		return nil
	}
	root.AddCommand(
		newAnalyzeCommand(e, g),
		newDiffCommand(e, g),
		newCollectCommand(e, g),
		newCaptureCommand(e, g),
		newRulesCommand(e),
		newSnapshotCommand(e),
		newBundleCommand(e),
		newVersionCommand(e),
		newIdleCommand(),
		newMonitorCommand(e),
	)
	documentCompletion(root)
	return root
}

// documentCompletion gives cobra's generated completion commands the same
// help sections as ours.
func documentCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		// A shell without a script is one line, exit 2, not the help.
		c.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				var shells []string
				for _, sub := range c.Commands() {
					if sub.IsAvailableCommand() {
						shells = append(shells, sub.Name())
					}
				}
				return usageErrorf("no completion script for %q: diag has them for %s", args[0], strings.Join(shells, ", "))
			}
			return nil
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			return usageErrorf("%s needs a shell (see %s --help)", c.CommandPath(), c.CommandPath())
		}
		for _, sub := range append([]*cobra.Command{c}, c.Commands()...) {
			sub.Long += exitStatusCommon
			if sub.Example == "" {
				sub.Example = "  diag completion bash > /etc/bash_completion.d/diag\n  diag completion powershell | Out-String | Invoke-Expression"
			}
		}
	}
}

// exactArgs and minArgs report wrong argument counts as usage errors.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("%s needs %s (see %s --help)", c.CommandPath(), what, c.CommandPath())
		}
		return nil
	}
}

// subcommandArgs is the Args of a command that only groups others: an
// argument is a subcommand name that does not exist.
func subcommandArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's default, set only on its own path
	}
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return usageErrorf("%s (see %s --help)", msg, c.CommandPath())
}

func maxArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) > n {
			return usageErrorf("%s takes at most %d argument(s), got %d: %v", c.CommandPath(), n, len(args), args)
		}
		return nil
	}
}

func run(args []string, e *env) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(e.stderr, "diag: internal error: %v\n", p)
			code = exitInternal
		}
	}()
	ran := false
	root := newRootCommand(e, &ran)
	root.SetArgs(args)
	err := root.Execute()
	code, msg := exitCode(err)
	if err != nil && !ran && code == exitInternal {
		code = exitUsage // cobra's own errors (unknown command) come before any command ran
	}
	if msg != "" {
		fmt.Fprintf(e.stderr, "diag: %s\n", msg)
	}
	return code
}
