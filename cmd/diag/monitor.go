package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/time/rate"
	"k8s.io/client-go/rest"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/collectors"
	"github.com/wincni/diag/monitor"
)

type monitorOptions struct {
	listen      string
	interval    time.Duration
	jitter      float64
	replay      bool
	recordDir   string
	recordKeep  int
	events      bool
	eventDedup  time.Duration
	eventBurst  int
	eventEvery  time.Duration
	kubeconfig  string
	node        string
	vfpEvery    int
	maxSeries   int
	rounds      int
	rules, skip []string

	sel analyzers.Selection // what validate read from --rules and --skip-rules
}

// validate reads the flags and the bundles' names before the listener
// opens or a round runs.
func (o *monitorOptions) validate(c *cobra.Command, bundles []string) error {
	switch {
	case o.interval < time.Second:
		return outOfRange(c, "interval", o.interval)
	case o.jitter < 0 || o.jitter > 0.5:
		return outOfRange(c, "jitter", o.jitter)
	case o.recordKeep < 1:
		return outOfRange(c, "record-keep", o.recordKeep)
	case o.maxSeries < 1:
		return outOfRange(c, "max-finding-series", o.maxSeries)
	case o.vfpEvery < 0:
		return outOfRange(c, "vfp-every", o.vfpEvery)
	case o.rounds < 0:
		return outOfRange(c, "rounds", o.rounds)
	case o.eventBurst < 1 || o.eventEvery <= 0 || o.eventDedup <= 0:
		return usageErrorf("--event-burst, --event-every and --event-dedup must be positive")
	case o.replay && len(bundles) == 0:
		return usageErrorf("diag monitor --replay needs at least one bundle (see diag monitor --help)")
	case !o.replay && len(bundles) > 0:
		return usageErrorf("diag monitor takes bundles only with --replay, got %v", bundles)
	}
	if o.replay && !c.Flags().Changed("events") {
		o.events = false
	}
	o.sel = analyzers.Selection{Only: o.rules, Skip: o.skip}
	if err := o.sel.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	for _, p := range bundles {
		if _, err := os.Stat(p); err != nil {
			return usageErrorf("%s: %v", p, errors.Unwrap(err))
		}
	}
	return nil
}

func newMonitorCommand(e *env) *cobra.Command {
	o := &monitorOptions{}
	c := &cobra.Command{
		Use:   "monitor [--replay BUNDLE...]",
		Short: "On a node, continuously: metrics, Events, and a bundle of the moment it broke",
		Long: `monitor runs on a node (a HostProcess pod on Windows, a host-network pod on Linux; see
deploy/monitor.yaml). Every --interval (jittered) it takes the state the per-node rules need
(HNS networks, endpoints, load balancers and policies, host adapters and routes, kube-proxy and
CNI configuration; VFP every --vfp-every rounds; the node's Kubernetes objects from watches),
runs the rules and publishes what it found:

  - Prometheus metrics on --listen /metrics (diag_monitor_finding per open finding, rules run
    and skipped, round duration, HNS object counts, endpoints without VFP rules, the time of the
    last good round, the HNS service's threads, handles, memory and restarts), with /healthz
    and /readyz;
  - a Kubernetes Event on the Node when a finding appears and when it resolves (deduplicated,
    rate-limited), with the rule's summary and fix;
  - with --record-dir, a full redacted bundle (as diag collect writes it) of the moment a new
    fail appeared, the last --record-keep of them kept, named in the Event.

It is read-only, like collect: it never restarts or repairs anything. Without HNS, an API server
or a writable record directory it keeps running and says so in diag_monitor_source_up and
/readyz. SIGTERM (Ctrl-C) abandons the round in progress and ends with status 0.

With --replay the rounds run on saved bundles, one per round, in the order given, instead of
the live node (tests, demos, replaying a post-mortem); the metrics are the same, Events are off
unless --events is given, and after the last bundle its state is served until stopped.` + exitStatusCommon,
		Example: `  # on the node (deploy/monitor.yaml runs it so)
  diag monitor --listen :9640 --record-dir C:\diag\records

  # replay a post-mortem: one bundle per 5 s, metrics on localhost:9640
  diag monitor --replay --interval 5s --listen 127.0.0.1:9640 before.zip during.zip after.zip`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(c, args); err != nil {
				return err
			}
			return runMonitor(c.Context(), e, o, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.listen, "listen", ":9640", "address of /metrics, /healthz and /readyz")
	f.DurationVar(&o.interval, "interval", monitor.DefaultInterval, "time between rounds (each jittered by --jitter)")
	f.Float64Var(&o.jitter, "jitter", 0.1, "the fraction of --interval each wait varies by, so that the nodes do not all look at once (0 to 0.5)")
	f.BoolVar(&o.replay, "replay", false, "run the rounds on the bundles given as arguments, one per round, instead of the live node")
	f.StringVar(&o.recordDir, "record-dir", "", "write a full redacted bundle here when a new fail appears (the flight recorder); none without it")
	f.IntVar(&o.recordKeep, "record-keep", monitor.DefaultRecordKeep, "how many recorded bundles to keep in --record-dir (the oldest go)")
	f.BoolVar(&o.events, "events", true, "report findings as Events on the Node (off with --replay unless given)")
	f.DurationVar(&o.eventDedup, "event-dedup", 10*time.Minute, "the same finding's same transition within this time counts up its Event instead of making a new one")
	f.IntVar(&o.eventBurst, "event-burst", 25, "Events (created or counted up) at most at once")
	f.DurationVar(&o.eventEvery, "event-every", 10*time.Second, "then at most one Event per this time; the others are dropped and counted")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for the Node's Events and the Kubernetes objects (default: the pod's service account, else as kubectl)")
	f.StringVar(&o.node, "node", "", "this node's Kubernetes name (default: $NODE_NAME, else the host name)")
	f.IntVar(&o.vfpEvery, "vfp-every", 10, "take VFP state (vfpctrl, a process per port and query) every this many rounds; 0 never")
	f.IntVar(&o.maxSeries, "max-finding-series", monitor.DefaultMaxFindingSeries, "at most this many diag_monitor_finding series (worst first); the rest are counted in diag_monitor_finding_series_dropped")
	f.IntVar(&o.rounds, "rounds", 0, "stop after this many rounds (0: until stopped)")
	validValues(f, "interval", "a duration of 1s or more")
	validValues(f, "jitter", "a fraction of --interval, 0 to 0.5")
	validValues(f, "record-keep", "1 or more")
	validValues(f, "max-finding-series", "1 or more")
	validValues(f, "vfp-every", "0 (never) or a number of rounds")
	validValues(f, "rounds", "0 (until stopped) or a number of rounds")
	f.StringSliceVar(&o.rules, "rules", nil, "run only these rules (IDs or families)")
	f.StringSliceVar(&o.skip, "skip-rules", nil, "do not run these rules (IDs or families)")
	return c
}

func runMonitor(ctx context.Context, e *env, o *monitorOptions, bundles []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	sel := o.sel
	node := o.node
	if node == "" {
		node = nodeName(e)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return usageErrorf("--listen %s: %v", o.listen, err)
	}
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(e.stderr, "%s monitor: %s\n", e.now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
	ctx, stop := stopOnSignals(ctx)
	defer stop()
	if e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(monitor.DefaultMemoryLimit)
	}

	mo := monitor.Options{Interval: o.interval, Jitter: o.jitter, Selection: sel, MaxFindingSeries: o.maxSeries,
		Version: toolVersion(), Rounds: o.rounds, Logf: logf, Now: e.now}
	if o.jitter == 0 {
		mo.Jitter = -1
	}
	if !o.replay {
		mo.HNSService = collectors.ReadHNSService
	}
	if o.recordDir != "" {
		mo.Recorder = &monitor.Recorder{Dir: o.recordDir, Keep: o.recordKeep, Node: node}
	}

	// A replay reads no API server unless its Events are asked for.
	var cfg *rest.Config
	var from string
	var kerr error
	if !o.replay || o.events {
		cfg, from, kerr = monitor.KubeConfig(o.kubeconfig)
		if kerr != nil && o.kubeconfig != "" {
			return usageErrorf("%v", kerr)
		}
	}
	// A replay asked for its Events has nothing else to do with the API
	// server: without it, what was asked cannot be done.
	if o.replay && o.events && cfg == nil {
		why := kerr
		if why == nil {
			why = errNoCredentials
		}
		return usageErrorf("--events with --replay: %v", why)
	}
	cluster.SilenceClientLogs()
	if cfg != nil && o.events {
		client, err := monitor.NewEventAPI(cfg)
		if err != nil {
			return usageErrorf("kubeconfig %s: %v", from, err)
		}
		mo.Events = &monitor.Eventer{Client: client, Node: node, Dedup: o.eventDedup, Limit: rate.NewLimiter(rate.Every(o.eventEvery), o.eventBurst)}
	}

	var src monitor.Source
	if o.replay {
		src = &monitor.ReplaySource{Paths: bundles, Version: toolVersion()}
	} else {
		noKube := kerr
		if cfg == nil && kerr == nil {
			noKube = errNoCredentials
		}
		live, cleanup, err := liveSource(ctx, e, o, node, cfg, noKube, logf)
		if err != nil {
			return err
		}
		defer cleanup()
		src = live
	}
	switch {
	case o.replay && !o.events:
	case !o.replay && cfg == nil:
		// The rounds say it: source_up{kubernetes}, /readyz and the log.
	case kerr != nil:
		logf("kubernetes: %v", kerr)
	case cfg == nil:
		logf("kubernetes: %v", errNoCredentials)
	default:
		logf("kubernetes: credentials from %s", from)
	}

	mon := monitor.New(src, mo)
	srv := &http.Server{Handler: mon.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logf("serving /metrics, /healthz and /readyz on %s; a round every %s", ln.Addr(), o.interval)
	runErr := mon.Run(ctx)
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shut)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	if ctx.Err() != nil {
		logf("%v: stopped", context.Cause(ctx))
	}
	return runErr
}

// errNoCredentials is why a monitor without kubeconfig, outside a pod,
// reads no Kubernetes object: the log, the metrics and /readyz say it.
var errNoCredentials = errors.New("no credentials (no kubeconfig, not in a pod): no Events, no Kubernetes objects for the rules")

// liveSource is the node's state through the collectors, with the
// Kubernetes objects from watches when there is an API server.
func liveSource(ctx context.Context, e *env, o *monitorOptions, node string, cfg *rest.Config, noKube error, logf func(string, ...any)) (*monitor.LiveSource, func(), error) {
	dir, err := os.MkdirTemp("", "diag-monitor-")
	if err != nil {
		return nil, nil, fmt.Errorf("a directory for the rounds' bundles: %w", err)
	}
	cenv := &collectors.Env{Runner: collectors.ExecRunner{}, FS: rootFS(), NodeName: node, TempDir: dir, MaxLogBytes: collectors.DefaultMaxLogBytes}
	// The flight recorder's full bundle lists the Kubernetes objects once,
	// as collect does; the rounds read them from the watches.
	cenv.Kube, _, cenv.KubeErr = collectors.NewKubeSource(o.kubeconfig)
	if runtime.GOOS == "windows" {
		if hns, err := collectors.NewHNSSource(); err == nil {
			cenv.HNS = hns
		} else {
			logf("hns: %v", err)
		}
	}
	live := &monitor.LiveSource{GOOS: runtime.GOOS, Env: cenv, VFPEvery: o.vfpEvery, Dir: dir, Version: toolVersion(), Timeout: min(o.interval, 45*time.Second), KubeErr: noKube}
	if cfg != nil {
		w, err := monitor.NewKubeWatch(cfg, node)
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, usageErrorf("%v", err)
		}
		w.Start(ctx)
		live.Kube = w
	}
	if _, err := live.Plan(0); err != nil {
		os.RemoveAll(dir)
		return nil, nil, usageErrorf("%v", err)
	}
	return live, func() { os.RemoveAll(dir) }, nil
}
