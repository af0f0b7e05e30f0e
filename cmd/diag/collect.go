package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/collectors"
	"github.com/wincni/diag/manifest"
)

type collectOptions struct {
	output      string
	outputOld   string // -o/--output: the old spelling of --output-file
	timeout     time.Duration
	only, skip  []string
	kubeconfig  string
	capture     time.Duration
	parallel    int
	maxLogBytes int64
	force       bool
	// stream writes the bundle framed to stdout (diag collect --cluster
	// reads it over the pod's exec stdout) instead of to a file.
	stream bool
}

func newCollectCommand(e *env, g *globalOptions) *cobra.Command {
	var o collectOptions
	var co clusterOptions
	cmd := &cobra.Command{
		Use:   "collect",
		Short: "Snapshot this node's networking state into a bundle",
		Long: `collect runs on a Windows node (as Administrator, or in a HostProcess pod) and writes HNS
(v2 and v1, as HNS returns it), VFP ports and rules, adapters, routes, firewall, OS build, port
ranges, CNI/flannel/Calico/kube-proxy configuration, log tails and the node's Kubernetes context
into one bundle zip. On a Linux node it collects the Linux side of the overlay (links with VXLAN
details, routes, neighbours, bridge FDB) and the same configuration.

It only reads: HNS is queried, never changed, and commands (vfpctrl, PowerShell Get-* cmdlets,
netsh show, ip, bridge) run with argument lists. The one exception is --capture, which adds pktmon
filters for the capture's length and removes them. Secrets (tokens, private keys, passwords, cloud
credentials) are removed from every text file; the manifest says what was removed, never the value.

Collectors run in parallel, each with its own timeout inside --timeout. One that hangs, fails or
panics is recorded in manifest.json and the others go on; Ctrl-C (or SIGTERM/SIGHUP: a
HostProcess pod being deleted, an SSH session dropped) writes what was collected so far.
Progress goes to stderr, the bundle's path to stdout.

The output is checked before anything is collected: its directory must exist and be writable,
and an existing file is replaced only with --force.

With --cluster, diag runs where kubectl does and collects from the cluster's nodes (all, --nodes,
--selector, --windows-only, or --nodes auto: NotReady Windows nodes, those with pod sandbox
failures in the last hour, and a healthy Windows and a Linux node to compare). For each node it
creates a pod pinned to it (HostProcess as SYSTEM on Windows, root with the host's files on
Linux) from --image, runs diag collect in it over exec and streams the bundle back, framed and
checksummed (no tar, no kubectl cp, no size limit but --max-bundle-size); --parallel nodes at a
time, each within --node-timeout. It writes <node>.zip and cluster.json (each node's status,
reason, duration, size) into --output-dir, deletes every pod it made, and then analyzes the
bundles together (-o the report's format, --output-file its file). Before the first pod it asks
the API server whether this user may do all it needs, and stops naming what is missing. A refusal every node would meet
(RBAC, credentials, the namespace) stops the run at the first; one of a pod spec (Pod Security,
an admission policy, validation) stops that OS's nodes and the others go on. Every pod it made is
deleted, also after Ctrl-C, and it waits until they are gone: a pod left Terminating (its node's
kubelet does not answer) is named with the command that removes it. --print-rbac prints the
namespace and RBAC it needs (deploy/cluster-rbac.yaml); --cleanup deletes the pods a killed run
left, and with --force also removes those left Terminating, without their kubelet's confirmation.

` + collectorList() + exitStatusCommon + `
  3  the bundle is partial: some collectors failed or timed out (see manifest.json in the bundle);
     with --cluster: findings at fail, some nodes (or none) gave a bundle (cluster.json says
     why), a pod could not be removed, or the run was interrupted (what arrived is kept, not
     analyzed); 2 also when the API server refused what every node (or every node of each OS)
     needs: permission, credentials, namespace, Pod Security`,
		Example: `  diag collect
  diag collect --output-file C:\temp\win-1.zip --timeout 5m
  diag collect --capture 30s            # also capture VXLAN traffic while you retry the failing request
  diag collect --only hns-v2,hns-v1,vfp  # just HNS and VFP
  diag collect --skip logs --kubeconfig C:\k\config
  diag collect --cluster --print-rbac | kubectl apply -f -
  diag collect --cluster --nodes auto --output-dir ticket-4711
  diag collect --cluster --windows-only --parallel 10 -o html --output-file report.html`,
		Args: maxArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.validate(c, &co); err != nil {
				return err
			}
			if co.on {
				return runCollectCluster(c.Context(), e, g, &co, o)
			}
			return runCollect(c.Context(), e, o)
		},
	}
	f := cmd.Flags()
	outputFileFlag(cmd, &o.output, &o.outputOld, "bundle to write (default diag-<node>-<UTC time>.zip in the current directory); with --cluster, the report's file (default: standard output)")
	// With --cluster, -o is the report's format, as in analyze.
	if fl := f.Lookup("output"); fl != nil {
		fl.Hidden = false
		fl.Usage = "with --cluster: the report's format: table, markdown, json or html (without it, the old spelling of --output-file)"
	}
	f.DurationVar(&o.timeout, "timeout", 5*time.Minute, "deadline for the whole collection")
	validValues(f, "timeout", "positive")
	f.StringSliceVar(&o.only, "only", nil, "run only these collectors (IDs, comma-separated)")
	f.StringSliceVar(&o.skip, "skip", nil, "do not run these collectors")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for the Kubernetes context (default: in-cluster, KUBECONFIG, ~/.kube/config, C:\\k\\config)")
	f.DurationVar(&o.capture, "capture", 0, "also capture VXLAN traffic for this long (e.g. 30s) into capture/diag.pcapng")
	validValues(f, "capture", "0 (no capture) or a positive duration such as 30s")
	f.IntVar(&o.parallel, "parallel", 4, "collectors to run at once; with --cluster, nodes collected at once")
	validValues(f, "parallel", "between 1 and 64")
	f.Int64Var(&o.maxLogBytes, "max-log-bytes", collectors.DefaultMaxLogBytes, "keep at most this many bytes of each log (its tail)")
	validValues(f, "max-log-bytes", "at least 1 (a log's tail in bytes)")
	f.BoolVar(&o.force, "force", false, "replace the output file if it exists; with --cluster --cleanup, also remove pods left Terminating (grace period 0: their node may still run them)")
	f.BoolVar(&o.stream, "stream", false, "write the bundle to stdout, framed and checksummed (what diag collect --cluster reads from its pods)")
	_ = f.MarkHidden("stream")
	addClusterFlags(f, &co)
	return cmd
}

// validate reads the flags, the node's and --cluster's, before anything
// runs.
func (o *collectOptions) validate(c *cobra.Command, co *clusterOptions) error {
	check := checkOutputFileFlags
	if co.on {
		check = co.takeOutputFlags
	}
	if err := check(c, &o.output, &o.outputOld); err != nil {
		return err
	}
	// Collector IDs in any case, as rule IDs.
	for _, ids := range [][]string{o.only, o.skip} {
		for i := range ids {
			ids[i] = strings.ToLower(ids[i])
		}
	}
	if err := checkClusterFlags(c, co, *o); err != nil {
		return err
	}
	if o.stream && o.output != "" {
		return usageErrorf("--stream writes the bundle to stdout: it takes no --output-file")
	}
	switch {
	case o.timeout <= 0:
		return outOfRange(c, "timeout", o.timeout)
	case o.capture < 0:
		return outOfRange(c, "capture", o.capture)
	case o.parallel < 1 || o.parallel > 64:
		return outOfRange(c, "parallel", o.parallel)
	case o.maxLogBytes < 1:
		return outOfRange(c, "max-log-bytes", o.maxLogBytes)
	}
	return nil
}

func runCollect(ctx context.Context, e *env, o collectOptions) error {
	node := nodeName(e)
	cenv := &collectors.Env{
		Runner:      collectors.ExecRunner{},
		FS:          rootFS(),
		NodeName:    node,
		Capture:     o.capture,
		TempDir:     os.TempDir(),
		MaxLogBytes: o.maxLogBytes,
	}
	kube, from, kerr := collectors.NewKubeSource(o.kubeconfig)
	if kerr != nil && o.kubeconfig != "" {
		return usageErrorf("%v", kerr)
	}
	cenv.Kube, cenv.KubeErr = kube, kerr
	if runtime.GOOS == "windows" {
		if hns, err := collectors.NewHNSSource(); err == nil {
			cenv.HNS = hns
		}
	}
	plan, err := collectors.Plan(runtime.GOOS, true, o.capture, o.only, o.skip)
	if err != nil {
		return usageErrorf("%v", err)
	}
	out := o.output
	if o.stream {
		dir, err := os.MkdirTemp("", "diag-stream-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		out = filepath.Join(dir, bundle.FileNamePart(node)+".zip")
	}
	if out == "" {
		out = fmt.Sprintf("diag-%s-%s.zip", bundle.FileNamePart(node), e.now().UTC().Format("20060102T150405Z"))
	}
	if err := checkOutput(out, o.force); err != nil {
		return err
	}

	ctx, stop := stopOnSignals(ctx)
	defer stop()
	view := newCollectView(e.stderr, e.stderrTerminal(), plan)
	defer view.close()
	finished := make(chan struct{})
	var noted sync.WaitGroup
	noted.Go(func() {
		select {
		case <-ctx.Done():
			view.line(fmt.Sprintf("%v: stopping; the bundle will hold what was collected so far", context.Cause(ctx)))
		case <-finished:
		}
	})
	defer func() { close(finished); noted.Wait() }()
	if kerr != nil {
		view.line(fmt.Sprintf("kubernetes: %v", kerr))
	} else if from != "" {
		view.line("kubernetes: credentials from " + from)
	}
	m := manifest.Manifest{
		Node: node,
		OS:   runtime.GOOS,
		Tool: &manifest.ToolInfo{Name: "diag", Version: toolVersion()},
		Options: map[string]string{
			"timeout": o.timeout.String(), "only": strings.Join(o.only, ","), "skip": strings.Join(o.skip, ","),
			"capture": o.capture.String(), "parallel": fmt.Sprint(o.parallel), "max-log-bytes": fmt.Sprint(o.maxLogBytes),
		},
	}
	res, err := collectors.Collect(ctx, out, m, cenv, plan, collectors.RunOptions{
		Parallel: o.parallel, Deadline: o.timeout, Progress: view.event,
		// The capture's own lines (reproduce the problem now, the time
		// left, no VXLAN captured) are for the person waiting on it.
		Logf: func(line string) {
			if strings.HasPrefix(line, "capture: ") && !strings.HasPrefix(line, "capture: started") {
				view.line("collect: " + line)
			}
		},
	})
	view.close()
	if err != nil {
		return err
	}
	if o.stream {
		if err := streamBundle(e.stdout, res.Path); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "collect: streamed the bundle (collectors: %s)\n", view.summary())
	} else {
		fmt.Fprintf(e.stderr, "collect: wrote %s (collectors: %s)\n", res.Path, view.summary())
		fmt.Fprintln(e.stdout, res.Path)
	}
	if !res.Complete {
		return &exitError{code: exitFindings, err: fmt.Errorf("the bundle %s is partial: some collectors failed or timed out (manifest.json has each one's error)", res.Path)}
	}
	return nil
}

// checkOutput finds, before a collection that may take minutes, what would
// make writing the bundle fail at its end: a missing or unwritable directory,
// or an existing file that is not to be replaced.
func checkOutput(out string, force bool) error {
	dir := filepath.Dir(out)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("--output %s: directory %s does not exist", out, dir)
	}
	if err := refuseExisting("--output", out, force); err != nil {
		return err
	}
	// The bundle is written as a temporary file in the same directory and
	// renamed into place: try exactly that.
	f, err := os.CreateTemp(dir, "."+filepath.Base(out)+".check-*")
	if err != nil {
		return usageErrorf("--output %s: directory %s is not writable: %v", out, dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// collectorList documents the collector IDs for --only and --skip.
func collectorList() string {
	var b strings.Builder
	for _, set := range []struct {
		os   string
		list []collectors.Collector
	}{{"windows", collectors.WindowsCollectors()}, {"linux", collectors.LinuxCollectors()}} {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "COLLECTORS ON %s\n", strings.ToUpper(set.os))
		for _, c := range append(set.list, collectors.KubeCollector(), collectors.CaptureCollector(30*time.Second)) {
			desc := c.Description
			if c.ID == "capture" {
				desc = "with --capture: VXLAN packet capture (pktmon on Windows, AF_PACKET on Linux)"
			}
			fmt.Fprintf(&b, "  %-15s %s\n", c.ID, desc)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
