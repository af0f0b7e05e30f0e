package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
)

// newIdleCommand is what a collector pod of diag collect --cluster runs
// until the run execs diag collect in it: it waits, and ends at the pod's
// deadline or when the pod is deleted.
func newIdleCommand() *cobra.Command {
	var d time.Duration
	c := &cobra.Command{
		Use:     "idle",
		Short:   "Wait (the collector pods of diag collect --cluster)",
		Long:    "idle waits for --for, or until stopped; diag collect --cluster's pods run it while it execs diag collect in them." + exitStatusCommon,
		Example: "  diag idle --for 12m",
		Hidden:  true,
		Args:    maxArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if d <= 0 {
				return outOfRange(c, "for", d)
			}
			ctx, stop := stopOnSignals(c.Context())
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			<-ctx.Done()
			return nil
		},
	}
	c.Flags().DurationVar(&d, "for", time.Hour, "how long to wait")
	validValues(c.Flags(), "for", "a positive duration")
	return c
}
