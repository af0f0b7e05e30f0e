package main

import (
	"github.com/spf13/cobra"
)

func newSnapshotCommand(e *env) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "snapshot INPUT",
		Short: "Print the normalized model diag built from an input",
		Long: `snapshot reads an input exactly as analyze does (a bundle, a collectlogs.ps1 output, HNS JSON,
Get-Hns* text) and prints the normalized model the rules see: networks, remote subnet routes,
endpoints, load balancers, host adapters and routes, Kubernetes nodes and services, the node
facts with their sources, and every field the input hid (System.Object[], truncated lists).
Use it to check what diag understood.` + exitStatusCommon,
		Example: `  diag snapshot bundle.zip -o json
  diag snapshot get-hnsnetwork.txt | jq '.networks[] | {name, managementIP}'`,
		Args: func(c *cobra.Command, args []string) error { return exactlyOne(c, args, "an input") },
		RunE: func(c *cobra.Command, args []string) error {
			if output != "json" {
				return usageErrorf("--output must be json, not %q", output)
			}
			budget := newMemoryBudget(e.getenv("GOMEMLIMIT") != "")
			defer budget.restore()
			s, err := loadBundle(args[0], budget)
			if err != nil {
				return err
			}
			return s.WriteJSON(e.stdout)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "json", "output format: json")
	foldCase(c.Flags(), "output")
	return c
}
