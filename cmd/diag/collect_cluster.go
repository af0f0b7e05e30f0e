package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/collectors"
	"github.com/wincni/diag/report"
)

// clusterOptions are diag collect --cluster's own flags.
type clusterOptions struct {
	on          bool
	context     string
	nodes       []string
	selector    string
	windowsOnly bool
	nodeTimeout time.Duration
	image       string
	namespace   string
	outputDir   string
	report      string
	reportFile  string
	maxBundle   string
	maxBytes    int64 // --max-bundle-size, as checkClusterFlags read it
	cleanup     bool
	printRBAC   bool
}

// releaseTag is a released version's tag (v1.2.3, v1.2.3-rc.1): only
// those have an image pushed by make image. Compiled on first use: every
// command builds the --image default, and a source build's version ("dev",
// "dev-<commit>") is no tag.
var releaseTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$`) })

// defaultImage is the multi-OS image of this version (make image), or ""
// for a build that is no release (a source build's commit or -dirty tag
// names no image that exists): --image is then needed.
func defaultImage() string {
	v := toolVersion()
	if !strings.HasPrefix(v, "v") || !releaseTag().MatchString(v) || strings.HasSuffix(v, "-dirty") {
		return ""
	}
	return "ghcr.io/wincni/diag:" + v
}

func addClusterFlags(f *pflag.FlagSet, o *clusterOptions) {
	f.BoolVar(&o.on, "cluster", false, "collect from the cluster's nodes through Kubernetes (a pod per node), then analyze them together")
	f.StringVar(&o.context, "context", "", "with --cluster: the kubeconfig context (default: the current one)")
	f.StringSliceVar(&o.nodes, "nodes", nil, "with --cluster: these nodes (names, comma-separated), or auto: NotReady Windows nodes, those with pod sandbox failures in the last hour, and a healthy Windows and a Linux node to compare")
	f.StringVar(&o.selector, "selector", "", "with --cluster: nodes matching this label selector")
	f.BoolVar(&o.windowsOnly, "windows-only", false, "with --cluster: Windows nodes only")
	f.DurationVar(&o.nodeTimeout, "node-timeout", 10*time.Minute, "with --cluster: the most one node may take (pod start, collection, transfer)")
	validValues(f, "node-timeout", "a positive duration such as 10m")
	f.StringVar(&o.image, "image", defaultImage(), "with --cluster: the diag image the collector pods run (Linux and Windows in one manifest list); a release's by default, needed for other builds")
	f.StringVar(&o.namespace, "namespace", "diag", "with --cluster: the namespace of the collector pods (deploy/cluster-rbac.yaml makes it)")
	f.StringVar(&o.outputDir, "output-dir", "", "with --cluster: the directory for <node>.zip and cluster.json (default diag-cluster-<UTC time>)")
	f.StringVar(&o.report, "report", "table", "with --cluster: the report's format (old spelling of -o)")
	f.StringVar(&o.reportFile, "report-file", "", "with --cluster: the report's file (old spelling of --output-file)")
	_ = f.MarkHidden("report")
	_ = f.MarkHidden("report-file")
	f.StringVar(&o.maxBundle, "max-bundle-size", "2GiB", "with --cluster: the largest bundle accepted from one node")
	f.BoolVar(&o.cleanup, "cleanup", false, "with --cluster: delete the collector pods a killed run left, and do nothing else")
	f.BoolVar(&o.printRBAC, "print-rbac", false, "with --cluster: print the RBAC and namespace diag needs (kubectl apply -f -), and do nothing else")
}

// clusterOnly are the flags that mean nothing without --cluster.
var clusterOnly = []string{"context", "nodes", "selector", "windows-only", "node-timeout", "image", "namespace", "output-dir", "report", "report-file", "max-bundle-size", "cleanup", "print-rbac"}

// takeOutputFlags gives -o and --output-file their meaning with --cluster,
// as in analyze: the report's format and its file (collect alone writes one
// bundle, to --output-file; its -o is that flag's old spelling). --report
// and --report-file, their first spellings, still work with a notice.
func (o *clusterOptions) takeOutputFlags(c *cobra.Command, file, format *string) error {
	f := c.Flags()
	for _, p := range []struct{ old, now string }{{"report", "output"}, {"report-file", "output-file"}} {
		if !f.Changed(p.old) {
			continue
		}
		if f.Changed(p.now) {
			return usageErrorf("give --%s only (--%s is its old spelling)", p.now, p.old)
		}
		fmt.Fprintf(c.ErrOrStderr(), "%s: --%s is deprecated, use --%s\n", c.CommandPath(), p.old, p.now)
	}
	if f.Changed("output") {
		o.report = *format
	}
	o.report = strings.ToLower(o.report)
	if f.Changed("output-file") {
		o.reportFile = *file
	}
	*file, *format = "", ""
	return nil
}

func checkClusterFlags(c *cobra.Command, o *clusterOptions, co collectOptions) error {
	f := c.Flags()
	if !o.on {
		for _, n := range clusterOnly {
			if f.Changed(n) {
				return usageErrorf("--%s is a flag of diag collect --cluster", n)
			}
		}
		return nil
	}
	switch {
	case co.stream:
		return usageErrorf("--cluster and --stream do not go together")
	case f.Changed("timeout"):
		return usageErrorf("with --cluster, --node-timeout bounds each node's collection, not --timeout")
	case o.nodeTimeout <= 0:
		return outOfRange(c, "node-timeout", o.nodeTimeout)
	case co.capture >= o.nodeTimeout:
		return usageErrorf("--capture %s does not fit in --node-timeout %s", co.capture, o.nodeTimeout)
	case co.force && !o.cleanup && o.reportFile == "":
		return usageErrorf("with --cluster, --force goes with --cleanup (remove pods left Terminating) or --output-file (replace the report)")
	case !slices.Contains(report.FormatNames(), o.report):
		_, err := report.ParseFormat(o.report)
		return usageErrorf("-o %v", err)
	case len(o.nodes) > 1 && slices.Contains(o.nodes, "auto"):
		return usageErrorf("--nodes auto chooses the nodes itself: it takes no names with it")
	case len(o.nodes) > 0 && (o.selector != "" || o.windowsOnly) && slices.Contains(o.nodes, "auto"):
		return usageErrorf("--nodes auto does not go with --selector or --windows-only")
	case !o.printRBAC && !o.cleanup && strings.TrimSpace(o.image) == "" && !f.Changed("image"):
		return usageErrorf("--image is needed: this diag (%s) is no release, so no image of it was published; build and push one (make image IMAGE=<registry>/diag:<tag>) and name it", toolVersion())
	case !o.printRBAC && !o.cleanup && strings.TrimSpace(o.image) == "":
		return usageErrorf("--image is empty: it names the diag image the collector pods run")
	case !o.printRBAC && !o.cleanup && strings.ContainsAny(o.image, " \t\n"):
		return usageErrorf("--image %q: an image reference has no spaces", o.image)
	case o.printRBAC:
		return nil
	}
	if err := refuseExisting("--output-file", o.reportFile, co.force); err != nil {
		return err
	}
	n, err := parseByteSize(o.maxBundle)
	if err != nil {
		return usageErrorf("--max-bundle-size: %v", err)
	}
	o.maxBytes = n
	return nil
}

func runCollectCluster(ctx context.Context, e *env, g *globalOptions, o *clusterOptions, co collectOptions) error {
	if o.printRBAC {
		_, err := io.WriteString(e.stdout, cluster.RBACFor(o.namespace))
		return err
	}
	// client-go logs its streams' troubles (and runtime.HandleError's
	// "UnhandledError") through klog's logger, to stderr: they are ours to
	// report, once, in each node's result.
	cluster.SilenceClientLogs()
	target, err := cluster.LoadTarget(co.kubeconfig, o.context)
	if err != nil {
		return usageErrorf("%v", err)
	}
	// Admins find diag's requests in the audit log by their user agent.
	target.Config.UserAgent = "diag/" + toolVersion() + " (" + runtime.GOOS + "/" + runtime.GOARCH + ") collect --cluster"
	api, err := cluster.NewAPI(target.Config)
	if err != nil {
		return err
	}
	ctx, stop := stopOnSignals(ctx)
	defer stop()
	// The first Ctrl-C stops the run and deletes its pods; a second one
	// ends diag at once, as without a handler.
	returned := make(chan struct{})
	defer close(returned)
	go func() {
		select {
		case <-ctx.Done():
			stop()
		case <-returned:
		}
	}()
	if o.cleanup {
		return runClusterCleanup(ctx, e, api, o.namespace, co.force)
	}

	sel := cluster.Selection{Names: o.nodes, Selector: o.selector, WindowsOnly: o.windowsOnly}
	if len(o.nodes) == 1 && o.nodes[0] == "auto" {
		sel = cluster.Selection{Auto: true}
	}
	choices, err := cluster.Choose(ctx, api, sel, e.now())
	if err != nil && ctx.Err() != nil {
		return interruptedEarly(ctx)
	}
	if cluster.IsUnreachable(err) {
		return usageErrorf("%v (kubeconfig context %s, server %s)", err, target.Context, target.Server)
	}
	if err != nil {
		return clusterError(err)
	}
	// Nodes to collect, and those wanted but skipped (named but not
	// there, kubelet not reporting): both count as nodes without a bundle.
	todo, skippedWanted := 0, 0
	for _, c := range choices {
		switch {
		case c.Skip == "":
			todo++
		case !cluster.SkipIsOS(c.Skip):
			skippedWanted++
		}
	}
	if todo == 0 {
		return usageErrorf("no node to collect from (%d chosen, all skipped or none matched)", len(choices))
	}
	// Ask first, so that a user without a permission hears it before a
	// pod is made. A server that cannot say is asked nothing more.
	missing, err := api.Missing(ctx, o.namespace, cluster.Needed)
	if err != nil && ctx.Err() != nil {
		return interruptedEarly(ctx)
	}
	if err == nil && len(missing) > 0 {
		return &exitError{code: exitUsage, err: &cluster.MissingError{Namespace: o.namespace, Missing: missing}}
	} else if cluster.IsUnreachable(err) {
		return usageErrorf("%v (kubeconfig context %s, server %s)", err, target.Context, target.Server)
	}
	dir := o.outputDir
	if dir == "" {
		dir = "diag-cluster-" + e.now().UTC().Format("20060102T150405Z")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErrorf("--output-dir %s: %v", dir, err)
	}
	fmt.Fprintf(e.stderr, "cluster: %s (%s): %d node(s) to collect, %d at a time, into %s\n", target.Context, target.Server, todo, co.parallel, dir)
	var mu sync.Mutex
	rep, err := cluster.Collect(ctx, api, target, choices, cluster.Options{
		Namespace: o.namespace, Image: o.image, Parallel: co.parallel, NodeTimeout: o.nodeTimeout,
		Capture: co.capture, OutputDir: dir, MaxBundle: o.maxBytes, Now: e.now, CollectArgs: passThrough(co),
		Progress: func(node, line string) {
			mu.Lock()
			defer mu.Unlock()
			if node == "" {
				node = "cluster" // the run's own lines
			}
			fmt.Fprintf(e.stderr, "%s: %s\n", node, strings.ReplaceAll(strings.TrimSpace(line), "\n", " | "))
		},
	})
	if rep != nil {
		for _, n := range rep.Nodes {
			if n.Status != cluster.StatusOK {
				fmt.Fprintf(e.stderr, "%s: %s: %s\n", n.Name, n.Status, n.Reason)
			}
			if n.PodLeft {
				fmt.Fprintf(e.stderr, "%s: pod %s/%s left: %s\n", n.Name, rep.Namespace, n.Pod, n.PodLeftReason)
			}
		}
		fmt.Fprintf(e.stderr, "cluster: %d ok, %d partial, %d failed, %d timed out, %d skipped, %d cancelled; %s\n",
			rep.Count(cluster.StatusOK), rep.Count(cluster.StatusPartial), rep.Count(cluster.StatusFailed), rep.Count(cluster.StatusTimeout),
			rep.Count(cluster.StatusSkipped), rep.Count(cluster.StatusCancelled), filepath.Join(dir, "cluster.json"))
		if stuck := rep.Stuck(); len(stuck) > 0 {
			fmt.Fprintf(e.stderr, "cluster: %d pod(s) left Terminating (their node's kubelet did not confirm the delete): diag collect --cluster --cleanup --force --namespace %s removes them without it\n", len(stuck), rep.Namespace)
		}
		if n := len(rep.Unanswered()); n > 0 {
			fmt.Fprintf(e.stderr, "cluster: %d pod(s) may still be there: the API server did not answer their delete; diag collect --cluster --cleanup --namespace %s removes them once it answers; each ends itself at its activeDeadlineSeconds\n", n, rep.Namespace)
		}
		if n := len(rep.Unknown()); n > 0 {
			fmt.Fprintf(e.stderr, "cluster: %d pod(s) may still be there: their delete was sent, but diag could not follow them; diag collect --cluster --cleanup --namespace %s removes them if they are; each ends itself at its activeDeadlineSeconds\n", n, rep.Namespace)
		}
		if left := len(rep.PodsLeft()) - len(rep.Stuck()) - len(rep.Unanswered()) - len(rep.Unknown()); left > 0 {
			fmt.Fprintf(e.stderr, "cluster: %d pod(s) could not be deleted (refused): diag collect --cluster --cleanup --namespace %s removes them, run by someone with the right to; each ends itself at its activeDeadlineSeconds\n", left, rep.Namespace)
		}
	}
	if err != nil {
		return clusterError(err)
	}
	bundles := rep.Bundles(dir)
	// Ctrl-C or SIGTERM: the pods are deleted and cluster.json written;
	// what arrived is not analyzed (the user asked diag to stop), and the
	// exit status is that of nodes without a bundle, as before any arrived.
	if ctx.Err() != nil {
		return interruptedRun(ctx, len(bundles), todo+skippedWanted, dir)
	}
	if len(bundles) == 0 {
		return &exitError{code: exitFindings, err: fmt.Errorf("no bundle arrived from the %d node(s) tried (%s says why for each)", todo, filepath.Join(dir, "cluster.json"))}
	}
	left := rep.PodsLeft()
	ao := defaultAnalyzeOptions()
	ao.output, ao.outputFile, ao.force = o.report, o.reportFile, co.force
	aerr := ao.validate()
	if aerr == nil {
		aerr = runAnalyze(ctx, e, g, &ao, bundles)
	}
	if aerr != nil && ctx.Err() != nil {
		return &exitError{code: exitFindings, err: fmt.Errorf("interrupted: %w; the bundles are in %s (diag analyze %s analyzes them)", aerr, dir, filepath.Join(dir, "*.zip"))}
	}
	if aerr == nil && len(bundles) < todo+skippedWanted {
		return &exitError{code: exitFindings, err: fmt.Errorf("the collection is partial: %d of %d node(s) gave a bundle (%s)", len(bundles), todo+skippedWanted, filepath.Join(dir, "cluster.json"))}
	}
	if aerr == nil && len(left) > 0 {
		return &exitError{code: exitFindings, err: fmt.Errorf("%d collector pod(s) are still there (above: why, and the command that removes them)", len(left))}
	}
	return aerr
}

// runClusterCleanup deletes the pods killed runs left and says, for each,
// what became of it: exit 2 when a delete was refused, 3 when a pod may
// still be there (Terminating, its delete unanswered, its state unknown).
func runClusterCleanup(ctx context.Context, e *env, api *cluster.API, namespace string, force bool) error {
	rep, err := cluster.Cleanup(ctx, api, namespace, force, 30*time.Second)
	if rep == nil && ctx.Err() != nil {
		// Ctrl-C while the pods were listed: nothing was deleted.
		return &exitError{code: exitFindings, err: fmt.Errorf("interrupted before any pod was deleted (%v): the pods of namespace %s are as they were", context.Cause(ctx), namespace)}
	}
	if rep == nil {
		return clusterError(err)
	}
	for _, n := range rep.Deleted {
		fmt.Fprintf(e.stderr, "deleted pod %s/%s\n", namespace, n)
	}
	for _, n := range rep.Forced {
		fmt.Fprintf(e.stderr, "removed pod %s/%s without its kubelet's confirmation (--force)\n", namespace, n)
	}
	why := fmt.Sprintf("its node's kubelet did not confirm the delete within %s", rep.Waited)
	if rep.Interrupted != nil {
		why = fmt.Sprintf("the wait was interrupted (%v) before its node's kubelet confirmed the delete", rep.Interrupted)
	}
	for _, n := range rep.Terminating {
		fmt.Fprintf(e.stderr, "pod %s/%s is still Terminating: %s; diag collect --cluster --cleanup --force --namespace %s removes it without that confirmation\n", namespace, n, why, namespace)
	}
	for _, n := range rep.Unknown {
		fmt.Fprintf(e.stderr, "pod %s/%s was deleted, but whether it went is unknown: %v\n", namespace, n, rep.UnknownWhy)
	}
	for _, n := range rep.Found {
		if uerr := rep.Unsure[n]; uerr != nil {
			fmt.Fprintf(e.stderr, "pod %s/%s may still be there: its delete did not go through (%v); diag collect --cluster --cleanup --namespace %s deletes it once the API server answers\n", namespace, n, uerr, namespace)
		}
		if rerr := rep.Refused[n]; rerr != nil {
			fmt.Fprintf(e.stderr, "pod %s/%s not deleted: %v\n", namespace, n, rerr)
		}
	}
	fmt.Fprintf(e.stderr, "cleanup: %d of %d pod(s) gone in namespace %s\n", len(rep.Deleted)+len(rep.Forced), len(rep.Found), namespace)
	left := len(rep.Terminating) + len(rep.Unknown) + len(rep.Unsure)
	switch {
	case err != nil:
		return &exitError{code: exitUsage, err: fmt.Errorf("%d pod(s) not deleted: %w", len(rep.Refused), err)}
	case left > 0 && rep.Interrupted != nil:
		return &exitError{code: exitFindings, err: fmt.Errorf("interrupted (%v): %d pod(s) may still be there in namespace %s (above: each, and the command that removes it)", rep.Interrupted, left, namespace)}
	case left > 0:
		return &exitError{code: exitFindings, err: fmt.Errorf("%d pod(s) may still be there in namespace %s (above: each, and the command that removes it)", left, namespace)}
	}
	return nil
}

// interruptedEarly: Ctrl-C came before any pod was made (the node list or
// the access review was awaited); nothing is left to clean.
func interruptedEarly(ctx context.Context) error {
	return &exitError{code: exitFindings, err: fmt.Errorf("interrupted before any pod was made (%v)", context.Cause(ctx))}
}

// interruptedRun: Ctrl-C or SIGTERM stopped the run (its pods deleted,
// cluster.json written); it says how far the run came and how to analyze
// what arrived. Exit 3, as for nodes without a bundle.
func interruptedRun(ctx context.Context, bundles, wanted int, dir string) error {
	report := filepath.Join(dir, "cluster.json")
	if bundles == 0 {
		return &exitError{code: exitFindings, err: fmt.Errorf("interrupted (%v): no bundle arrived from the %d node(s) (%s says how far each came)", context.Cause(ctx), wanted, report)}
	}
	return &exitError{code: exitFindings, err: fmt.Errorf("interrupted (%v): %d of %d node(s) gave a bundle, in %s (%s says how far the others came); not analyzed: diag analyze %s analyzes them",
		context.Cause(ctx), bundles, wanted, dir, report, filepath.Join(dir, "*.zip"))}
}

// clusterError: RBAC, admission, validation and credentials are the
// user's to fix (exit 2).
func clusterError(err error) error {
	if cluster.RefusalScope(err) != cluster.ScopeNode {
		return &exitError{code: exitUsage, err: err}
	}
	return err
}

// passThrough are the collect flags the pods' diag collect gets as given.
func passThrough(co collectOptions) []string {
	var out []string
	if len(co.only) > 0 {
		out = append(out, "--only", strings.Join(co.only, ","))
	}
	if len(co.skip) > 0 {
		out = append(out, "--skip", strings.Join(co.skip, ","))
	}
	if co.maxLogBytes != collectors.DefaultMaxLogBytes {
		out = append(out, "--max-log-bytes", fmt.Sprint(co.maxLogBytes))
	}
	return out
}
