package main

import "github.com/spf13/cobra"

func newCollectCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "collect",
		Short: "Snapshot this node's networking state into a bundle (not implemented yet)",
		Long: `collect runs on a Windows node (Administrator or a HostProcess pod) and writes HNS, VFP,
host and Kubernetes state into one bundle.zip without changing anything on the node.

This build does not collect yet (issue 6). Until then, assemble a bundle directory by hand in
the layout of the README, or analyze collectlogs.ps1 output when the formats issue lands.` + exitStatusCommon + `
  3  the bundle is partial: some collectors failed or timed out`,
		Example: `  diag collect
  diag collect --output C:\temp\win-1.zip --timeout 5m`,
		Args: maxArgs(0),
		RunE: func(*cobra.Command, []string) error {
			return notImplemented("diag collect", "on-node collection, issue 6")
		},
	}
}
