package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats"
	"github.com/wincni/diag/report"
	"github.com/wincni/diag/snapshot"
)

type analyzeOptions struct {
	reportFlags
	rules     []string
	skipRules []string
	maxPart   string
	showSkip  bool
	capture   capture.Limits // of the captures inside bundles

	// What validate read from the flags.
	sel analyzers.Selection
	lim formats.Limits
}

// validate reads the flags before any input is opened.
func (o *analyzeOptions) validate() error {
	if err := o.reportFlags.validate(true); err != nil {
		return err
	}
	o.sel = analyzers.Selection{Only: o.rules, Skip: o.skipRules}
	if err := o.sel.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	maxPart, err := parseByteSize(o.maxPart)
	if err != nil {
		return usageErrorf("--max-part-size: %v", err)
	}
	o.lim = partLimits(maxPart)
	return checkCaptureLimits(o.capture)
}

func newAnalyzeCommand(e *env, g *globalOptions) *cobra.Command {
	defaults := defaultAnalyzeOptions()
	o := &analyzeOptions{}
	c := &cobra.Command{
		Use:   "analyze INPUT... | -",
		Short: "Analyze bundles offline and report findings with evidence and fixes",
		Long: `analyze reads one or more inputs, builds the normalized model of each node and runs every
rule on it. Each finding names the broken object, the evidence (file, object, field, value found,
value expected) and the fix. Rules whose inputs are missing are skipped with the reason.

An input is any of:
  - a diag bundle (zip or directory), with or without manifest.json
  - collectlogs.ps1 output (folder or zip, AKS *_logs.zip)
  - HNS JSON (Get-HnsNetwork | ConvertTo-Json, HNS v1 or v2), Kubernetes lists (kubectl get -o json),
    Linux iproute2 JSON (ip -j -d link, ip -j addr|route|neigh, bridge -j fdb)
  - console text as pasted into tickets: Get-HnsNetwork / Get-HnsEndpoint / Get-HnsPolicyList /
    Get-HnsNamespace lists or tables, hnsdiag list, ipconfig (/all), route print, Get-NetRoute,
    Get-NetAdapter, vfpctrl; several in one file; Markdown quoting undone
  - "-": standard input (a paste, or Get-HnsNetwork | ConvertTo-Json over ssh)` + exitStatusCommon + `
  3  findings at or above --fail-on (default: fail)

A rule that crashed is reported as an "error" finding and the others still run; when no
finding reaches --fail-on but a rule crashed, the exit status is 1.`,
		Example: `  diag analyze diag-win-1-20261122T0500Z.zip
  diag analyze testdata/bundles/seed-broken
  diag analyze -o markdown bundle.zip | pbcopy            # paste into a ticket
  diag analyze -o html --output-file report.html win-1.zip linux-1.zip
  diag analyze -o json --fail-on warn node1.zip node2.zip > findings.json
  diag analyze --rules OVL --skip-rules OVL-02 bundle.zip`,
		Args: minArgs(1, "at least one input (a bundle, collectlogs output, a paste, or - for standard input)"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return runAnalyze(c.Context(), e, g, o, args)
		},
	}
	f := c.Flags()
	addReportFlags(c, &o.reportFlags, true)
	f.StringSliceVar(&o.rules, "rules", nil, "run only these rules (IDs or families, e.g. OVL-01,SVC)")
	f.StringSliceVar(&o.skipRules, "skip-rules", nil, "do not run these rules (IDs or families)")
	f.BoolVar(&o.showSkip, "show-skipped", false, "list every rule skipped for want of its inputs, with the input it needs (table output; other formats always have them)")
	addCaptureLimitFlags(f, &o.capture)
	f.StringVar(&o.maxPart, "max-part-size", defaults.maxPart, "the largest part of an input read whole (console text, a JSON value up to a 16th of it); larger parts are skipped with a note")
	return c
}

// defaultAnalyzeOptions are analyze's flags as a user who gives none has
// them (collect --cluster analyzes with them too).
func defaultAnalyzeOptions() analyzeOptions {
	return analyzeOptions{reportFlags: reportFlags{output: "table", failOn: "fail"}, maxPart: "64MiB", capture: capture.Limits{
		MaxPacketSize: capture.DefaultMaxPacketSize, MaxInterfaces: capture.DefaultMaxInterfaces, MaxFlows: capture.DefaultMaxFlows, MaxTunnels: capture.DefaultMaxTunnels,
	}}
}

func runAnalyze(ctx context.Context, e *env, g *globalOptions, o *analyzeOptions, paths []string) error {
	sel, lim, failOn := o.sel, o.lim, o.severity
	// A folder of bundles (an upload unpacked, diag collect --cluster's
	// output) is each of its bundles, not one node made of them all.
	paths, expandNotes, err := expandInputs(e, paths)
	if err != nil {
		return err
	}
	snaps := make([]*snapshot.Snapshot, 0, len(paths))
	each := make([]finding.Result, 0, len(paths))
	budget := newMemoryBudget(e.getenv("GOMEMLIMIT") != "")
	var nodes snapshot.KubeNodeTable // the cluster's Node list, once for all its bundles
	defer budget.restore()
	prog := newProgress(e.stderr, e.stderrTerminal())
	defer prog.done()
	var unread []error
	var read []string // the inputs read, in snaps' order
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("analysis stopped after %d of %d inputs: %w", i, len(paths), context.Cause(ctx))
		}
		prog.step("reading", i+1, len(paths), p)
		var s *snapshot.Snapshot
		if p == "-" {
			s, err = loadStdin(e.stdin, lim)
		} else {
			s, err = loadBundleWith(p, budget, lim)
		}
		if err != nil {
			// One unreadable input among several: the others are still
			// reported, the report names it and the exit status says so.
			if len(paths) > 1 && isInputError(err) {
				unread = append(unread, err)
				continue
			}
			return err
		}
		// The per-node rules run as each input is loaded, and the input
		// then keeps only what the cross-node rules and the report read:
		// memory grows by that much per bundle, not by whole bundles.
		each = append(each, analyzers.RunNode(s, sel))
		if len(paths) > 1 {
			s.DropNodeDetail()
			nodes.Share(s)
		}
		snaps = append(snaps, s)
		read = append(read, p)
	}
	if len(snaps) == 0 && len(unread) > 0 {
		return unread[0]
	}
	prog.step("analyzing", len(paths), len(paths), "cross-node rules")
	res := analyzers.Combine(snaps, each, sel)
	res.Notes = append(expandNotes, res.Notes...)
	for _, err := range unread {
		res.Notes = append(res.Notes, "not read: "+oneLine(err.Error()))
	}
	capOpts := capture.Options{Limits: o.capture, FlowsGrew: budget.flows}
	if err := capture.AnalyzeBundles(read, snaps, analyzers.NodeLabels(snaps), sel.Includes, capOpts, &res); err != nil {
		return err
	}
	now := e.now().UTC()
	rep := report.Build(report.Tool{Name: "diag", Version: toolVersion()}, &now, snaps, res)

	if err := o.write(e, g, rep, report.TableOptions{ShowSkipped: o.showSkip}); err != nil {
		return err
	}
	if len(unread) > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d input(s) could not be read, the report covers the others: %v", len(unread), len(paths), unread[0])}
	}
	if err := analyzeExit(rep, failOn); err != nil {
		return err
	}
	// No finding from an input without the state the rules judge is no
	// healthy verdict: automation must not read exit 0 as one. With
	// --fail-on never the caller asked for 0 whatever is found; the report
	// says it all the same.
	for _, s := range snaps {
		if s.Unjudged != "" && failOn != failNever {
			return &exitError{code: exitFindings, err: fmt.Errorf("%s: %s", s.NodeName(), s.Unjudged)}
		}
	}
	return nil
}

// expandInputs replaces each folder that holds bundles by those bundles,
// saying so on stderr.
func expandInputs(e *env, paths []string) ([]string, []string, error) {
	var out, notes []string
	for _, p := range paths {
		if p == "-" {
			out = append(out, p)
			continue
		}
		in, err := formats.ExpandInput(p)
		if err != nil {
			return nil, nil, err
		}
		if len(in.Paths) > 1 || (len(in.Paths) == 1 && in.Paths[0] != p) {
			fmt.Fprintf(e.stderr, "%s: %d bundle(s): %s\n", p, len(in.Paths), strings.Join(relativeTo(p, in.Paths), ", "))
		}
		out = append(out, in.Paths...)
		notes = append(notes, in.Notes...)
	}
	return out, notes, nil
}

// relativeTo shortens paths under dir for a message.
func relativeTo(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
			p = r
		}
		out[i] = p
	}
	return out
}

// isInputError: the input could not be opened or parsed (exit 2), not a
// fault of diag's.
func isInputError(err error) bool {
	var be *bundle.Error
	var pe *formats.ParseError
	return errors.As(err, &be) || errors.As(err, &pe)
}

func loadBundle(path string, budget *memoryBudget) (*snapshot.Snapshot, error) {
	return loadBundleWith(path, budget, formats.DefaultLimits)
}

// stdinName names standard input in messages and the report.
const stdinName = "standard input"

// loadStdin reads an input piped in (`Get-HnsNetwork | ConvertTo-Json`
// over ssh, a paste), up to the part limit.
func loadStdin(r io.Reader, lim formats.Limits) (*snapshot.Snapshot, error) {
	if r == nil {
		r = strings.NewReader("")
	}
	data, err := io.ReadAll(io.LimitReader(r, lim.MaxPart+1))
	if err != nil {
		return nil, &bundle.Error{Path: stdinName, Err: err}
	}
	if int64(len(data)) > lim.MaxPart {
		return nil, &bundle.Error{Path: stdinName, Err: fmt.Errorf("%w: more than %d bytes (%s raises the limit)", bundle.ErrTooLarge, lim.MaxPart, formats.LimitFlag)}
	}
	b, err := bundle.OpenBytes(stdinName, data, bundle.DefaultLimits)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return formats.LoadWith(b, lim)
}

// loadBundleWith loads an input within the per-part limits.
func loadBundleWith(path string, budget *memoryBudget, lim formats.Limits) (*snapshot.Snapshot, error) {
	b, err := bundle.Open(path, bundle.DefaultLimits)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	budget.add(b.TotalSize())
	return formats.LoadWith(b, lim)
}

// memoryBudget keeps analysis within a few times the size of its input: a
// soft memory limit (debug.SetMemoryLimit) of memoryPercentOfInput of the
// bytes of the bundles loaded so far, never below minMemoryLimit. The
// garbage collector then works harder instead of letting the heap double,
// trading a little time for memory. GOMEMLIMIT, when set, wins.
//
// The model of a bundle is smaller than its JSON (10.0 MB live after the
// load of the 15.3 MB bundle of a node in a 1,000-node cluster), and the
// collector needs room beside it. Measured on that bundle, ten runs of
// each limit alternated (GOMEMLIMIT), median CPU and largest peak RSS:
// 155% of the input 251 ms, 38.2 MB; 140% 265 ms, 36.5 MB; 135% 278 ms,
// 36.0 MB; 130% 296 ms, 35.9 MB; 125% 331 ms, 35.9 MB; decoding its JSON
// alone takes 325 ms. Below 135% the collector's CPU grows and the RSS
// does not fall: about 19.7 MB of it are the binary's own pages, and the
// heap cannot shrink below the live model and what the load allocates
// while a collection runs. A 5,000-node bundle (76 MB), five runs: 1.30 s
// CPU and 99.5 MB at 135%, the same at 155%. The floor is for small
// inputs, where the runtime's own few megabytes would leave the collector
// no room.
type memoryBudget struct {
	off   bool
	bytes int64
	prev  int64
}

const (
	memoryPercentOfInput = 135
	minMemoryLimit       = 16 << 20
)

func newMemoryBudget(userLimit bool) *memoryBudget {
	return &memoryBudget{off: userLimit, prev: -1}
}

func (m *memoryBudget) add(n int64) {
	if m == nil || m.off {
		return
	}
	m.bytes += n
	m.set(max(int64(minMemoryLimit), m.bytes*memoryPercentOfInput/100))
}

// flows makes room for a capture's tracked flows as diag capture decode
// does (captureMemoryLimit), where the budget of the bundles is smaller: a
// bundle's capture can hold more flows than its JSON suggests.
func (m *memoryBudget) flows(n int) {
	if m == nil || m.off {
		return
	}
	if l := captureMemoryLimit(n); l > debug.SetMemoryLimit(-1) {
		m.set(l)
	}
}

// set sets the soft limit, keeping the one before the first for restore.
func (m *memoryBudget) set(limit int64) {
	if old := debug.SetMemoryLimit(limit); m.prev < 0 {
		m.prev = old
	}
}

func (m *memoryBudget) restore() {
	if m != nil && m.prev >= 0 {
		debug.SetMemoryLimit(m.prev)
	}
}

// analyzeExit: 3 when a finding reaches the threshold, else 1 when a rule
// crashed, else 0.
// failNever is above every severity: --fail-on never exits 0 whatever is
// found (automation that only wants the report).
const failNever = finding.Fail + 1

// parseFailOn reads --fail-on: fail, warn, info or never.
func parseFailOn(s string) (finding.Severity, error) {
	if strings.EqualFold(strings.TrimSpace(s), "never") {
		return failNever, nil
	}
	sev, err := finding.ParseSeverity(s)
	if err != nil || sev < finding.Info || sev > finding.Fail {
		return 0, usageErrorf("--fail-on must be fail, warn, info or never, not %q", s)
	}
	return sev, nil
}

func analyzeExit(rep *report.Report, failOn finding.Severity) error {
	crashed := false
	for _, f := range rep.Findings {
		if f.Severity == finding.Error {
			crashed = true
			continue
		}
		if f.Severity >= failOn {
			return &exitError{code: exitFindings}
		}
	}
	if crashed {
		return &exitError{code: exitInternal, err: fmt.Errorf("a rule crashed; its finding is in the report")}
	}
	return nil
}
