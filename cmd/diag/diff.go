package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/diff"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats"
	"github.com/wincni/diag/report"
	"github.com/wincni/diag/snapshot"
)

type diffOptions struct {
	reportFlags
	anyNodes bool
	maxPart  string

	lim formats.Limits // what validate read from --max-part-size
}

// validate reads the flags and the two inputs' names before either is
// opened.
func (o *diffOptions) validate(args []string) error {
	if err := o.reportFlags.validate(false); err != nil {
		return err
	}
	if args[0] == "-" && args[1] == "-" {
		return usageErrorf("standard input can be OLD or NEW, not both")
	}
	maxPart, err := parseByteSize(o.maxPart)
	if err != nil {
		return usageErrorf("--max-part-size: %v", err)
	}
	o.lim = partLimits(maxPart)
	return nil
}

func newDiffCommand(e *env, g *globalOptions) *cobra.Command {
	o := &diffOptions{}
	c := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "What changed on one node between two inputs: objects, and findings new or resolved",
		Long: `diff compares two inputs of one node, before and after ("it worked yesterday"), on the model
diag builds from them, not on their files: OLD and NEW can be any input analyze reads (a diag
bundle zip or directory, collectlogs output, pasted Get-Hns* text), and of different kinds.

It reports networks created, deleted or recreated (the same name with a new ID, as after an HNS
restart: one change), their ManagementIP, ProviderAddress, DR MAC, VNI and subnets; endpoints
added and removed; RemoteSubnetRoutes lost or gained or moved to another ProviderAddress; load
balancers (by frontend) with their backends and SourceVIP; VFP rules per port and layer; host
adapters and routes; kube-proxy flags; CNI configuration; the OS build, UBR and hotfixes. What
only one side has is said once ("OLD has no ...: not compared"), not reported as removed.

The rules run on each side; their findings are new (only NEW), resolved (only OLD) or
persisting, matched by rule and subjects, so new object IDs alone do not make a problem new.

Two inputs of different nodes are refused unless --any-nodes.` + exitStatusCommon + `
     (also: OLD and NEW are of different nodes, without --any-nodes)
  3  something changed: an object, or a finding new or resolved (as diff(1) exits 1)`,
		Example: `  diag diff diag-win-1-20261121T0500Z.zip diag-win-1-20261122T0500Z.zip
  diag diff collectlogs-yesterday.zip diag-win-1-20261122T0500Z.zip   # formats may differ
  diag diff -o markdown before.zip after.zip | pbcopy                 # into a ticket
  diag diff -o json before.zip after.zip > diff.json                  # schema: docs/diff.schema.json
  diag diff --any-nodes win-1.zip win-2.zip                           # two nodes side by side`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("%s needs two inputs, OLD and NEW, got %d (see %s --help)", c.CommandPath(), len(args), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(args); err != nil {
				return err
			}
			return runDiff(c.Context(), e, g, o, args[0], args[1])
		},
	}
	f := c.Flags()
	addReportFlags(c, &o.reportFlags, false)
	f.BoolVar(&o.anyNodes, "any-nodes", false, "compare inputs of different nodes")
	f.StringVar(&o.maxPart, "max-part-size", "64MiB", "the largest part of an input read whole (as analyze)")
	return c
}

func runDiff(ctx context.Context, e *env, g *globalOptions, o *diffOptions, oldPath, newPath string) error {
	lim := o.lim
	budget := newMemoryBudget(e.getenv("GOMEMLIMIT") != "")
	defer budget.restore()
	load := func(p string) (*snapshot.Snapshot, error) {
		if p == "-" {
			return loadStdin(e.stdin, lim)
		}
		return loadBundleWith(p, budget, lim)
	}
	old, err := load(oldPath)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("diff stopped after reading %s: %w", oldPath, context.Cause(ctx))
	}
	cur, err := load(newPath)
	if err != nil {
		return err
	}
	if a, b := old.NodeName(), cur.NodeName(); a != "" && b != "" && !strings.EqualFold(a, b) && !o.anyNodes {
		return usageErrorf("%s is node %s and %s is node %s: diff compares one node over time (--any-nodes compares them anyway)", oldPath, a, newPath, b)
	}
	now := e.now().UTC()
	// Each side's findings as analyze gives them: the rules, and the
	// capture rules on the captures inside a bundle.
	findings := func(p string, s *snapshot.Snapshot) ([]finding.Finding, error) {
		res := analyzers.Run([]*snapshot.Snapshot{s}, analyzers.Selection{})
		snaps := []*snapshot.Snapshot{s}
		err := capture.AnalyzeBundles([]string{p}, snaps, analyzers.NodeLabels(snaps), analyzers.Selection{}.Includes, capture.Options{FlowsGrew: budget.flows}, &res)
		return res.Findings, err
	}
	of, err := findings(oldPath, old)
	if err != nil {
		return err
	}
	nf, err := findings(newPath, cur)
	if err != nil {
		return err
	}
	rep := report.BuildDiff(report.Tool{Name: "diag", Version: toolVersion()}, &now, old, cur, diff.Compare(old, cur), diff.SplitFindings(of, nf))

	if err := o.write(e, g, rep, report.TableOptions{}); err != nil {
		return err
	}
	if rep.Changed() {
		return &exitError{code: exitFindings}
	}
	return nil
}
