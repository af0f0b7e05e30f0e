package monitor

import (
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// DefaultMaxFindingSeries caps the per-finding series: a node with a
// thousand broken endpoints must not make a thousand series per scrape.
const DefaultMaxFindingSeries = 200

// Source names, as diag_monitor_source_up labels them.
const (
	SourceHNS        = "hns"
	SourceKubernetes = "kubernetes"
	SourceRecordDir  = "record_dir"
	SourceReplay     = "replay"
	SourceEvents     = "events"
)

// metrics is what /metrics serves: counters and histograms updated as
// rounds go, and the last round's state published through state.
type metrics struct {
	reg *prometheus.Registry

	mu        sync.Mutex
	state     *roundState
	sources   map[string]sourceStatus
	hns       HNSServiceStats
	maxSeries int

	rounds        *prometheus.CounterVec
	roundDuration prometheus.Histogram
	lastGood      prometheus.Gauge
	events        *prometheus.CounterVec
	eventsOwed    prometheus.Gauge
	eventsDropped prometheus.Counter
	recordings    *prometheus.CounterVec
	recordsKept   prometheus.Gauge
	hnsRestarts   prometheus.Counter
}

// sourceStatus is whether an outside dependency answered in the last
// round, and why not.
type sourceStatus struct {
	up     bool
	reason string
}

func newMetrics(version string, maxSeries int) *metrics {
	if maxSeries <= 0 {
		maxSeries = DefaultMaxFindingSeries
	}
	m := &metrics{reg: prometheus.NewRegistry(), sources: map[string]sourceStatus{}, maxSeries: maxSeries}
	m.rounds = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diag_monitor_rounds_total",
		Help: "Rounds run, by result: ok (the rules ran on the node's state) or failed (no state could be taken)."}, []string{"result"})
	m.roundDuration = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "diag_monitor_round_duration_seconds",
		Help:    "Wall time of a round: taking the state, parsing it and running the rules.",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}})
	m.lastGood = prometheus.NewGauge(prometheus.GaugeOpts{Name: "diag_monitor_last_good_round_timestamp_seconds",
		Help: "Unix time at which the last round that ran the rules ended; 0 before the first."})
	m.events = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diag_monitor_events_total",
		Help: "Kubernetes Events about findings, by transition (appeared, resolved) and result: created, aggregated (an Event of the same finding within the dedup window counted up), rate_limited (held back, sent in a later round), failed (the API server refused or could not be reached; tried again in a later round)."},
		[]string{"transition", "result"})
	m.eventsOwed = prometheus.NewGauge(prometheus.GaugeOpts{Name: "diag_monitor_events_owed",
		Help: "Transitions of findings not yet delivered as Events (refused, unreachable API server, rate limit), sent worst first in the next rounds."})
	m.eventsDropped = prometheus.NewCounter(prometheus.CounterOpts{Name: "diag_monitor_events_owed_dropped_total",
		Help: "Owed transitions given up because more were owed than the monitor keeps (the mildest go first)."})
	m.recordings = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diag_monitor_recordings_total",
		Help: "Flight-recorder bundles, by result: written, failed."}, []string{"result"})
	m.recordsKept = prometheus.NewGauge(prometheus.GaugeOpts{Name: "diag_monitor_recordings_kept",
		Help: "Flight-recorder bundles in the record directory."})
	m.hnsRestarts = prometheus.NewCounter(prometheus.CounterOpts{Name: "diag_monitor_hns_service_restarts_total",
		Help: "Restarts of the HNS service seen by the monitor (its process changed between two looks)."})
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "diag_monitor_build_info",
		Help: "Always 1; the diag version is the label.", ConstLabels: prometheus.Labels{"version": version}})
	info.Set(1)
	m.reg.MustRegister(m.rounds, m.roundDuration, m.lastGood, m.events, m.eventsOwed, m.eventsDropped, m.recordings, m.recordsKept, m.hnsRestarts, info,
		stateCollector{m}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range []string{"ok", "failed"} {
		m.rounds.WithLabelValues(r)
	}
	return m
}

func (m *metrics) setState(st *roundState, end time.Time) {
	m.mu.Lock()
	m.state = st
	m.mu.Unlock()
	m.lastGood.Set(float64(end.UnixNano()) / 1e9)
}

func (m *metrics) setSource(name string, err error) {
	st := sourceStatus{up: err == nil}
	if err != nil {
		st.reason = err.Error()
	}
	m.mu.Lock()
	m.sources[name] = st
	m.mu.Unlock()
}

// sourceProblems lists the sources that did not answer, for /readyz.
func (m *metrics) sourceProblems() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for name, s := range m.sources {
		if !s.up {
			out = append(out, name+": "+s.reason)
		}
	}
	sort.Strings(out)
	return out
}

func (m *metrics) setHNS(s HNSServiceStats) {
	m.mu.Lock()
	m.hns = s
	m.mu.Unlock()
}

// stateDescs describe the series stateCollector publishes. They are built
// when the monitor first collects, not at start: every diag command would
// pay for them.
type stateDescs struct {
	finding, findings, dropped, rules, objects, noVFP, vfpPresent, unjudged, source, hnsUp, hnsObservable, hnsThreads, hnsHandles, hnsMemory, hnsStart *prometheus.Desc
}

var descs = sync.OnceValue(func() *stateDescs {
	return &stateDescs{
		finding: prometheus.NewDesc("diag_monitor_finding",
			"An open finding of the last round: 1 per finding (more when several share the labels). subject is the objects it is about, HNS GUIDs left out.",
			[]string{"rule", "severity", "subject"}, nil),
		findings: prometheus.NewDesc("diag_monitor_findings",
			"Open findings of the last round by severity (all of them, whatever the series cap).", []string{"severity"}, nil),
		dropped: prometheus.NewDesc("diag_monitor_finding_series_dropped",
			"Open findings of the last round not exported as diag_monitor_finding because of the series cap (--max-finding-series).", nil, nil),
		rules: prometheus.NewDesc("diag_monitor_rules",
			"Per-node rules in the last round by state: ran, skipped (inputs missing), not_applicable (not this node's OS or network plugin), error (the rule crashed).", []string{"state"}, nil),
		objects: prometheus.NewDesc("diag_monitor_hns_objects",
			"HNS objects in the last round by kind (endpoints are this node's, remote_endpoints the overlay's other nodes').", []string{"kind"}, nil),
		noVFP: prometheus.NewDesc("diag_monitor_endpoints_without_vfp_rules",
			"Local endpoints whose vSwitch port vfpctrl dumped with no rule in any layer (NAT networks left out). Absent when the last round had no VFP state; see diag_monitor_vfp_state_present.", nil, nil),
		vfpPresent: prometheus.NewDesc("diag_monitor_vfp_state_present",
			"1 when the last round read VFP state (vfpctrl), 0 when it did not.", nil, nil),
		unjudged: prometheus.NewDesc("diag_monitor_node_unjudged",
			"1 when the last round lacked the state the rules judge (no HNS state on a Windows node): no finding then does not mean healthy.", nil, nil),
		source: prometheus.NewDesc("diag_monitor_source_up",
			"1 when the source answered in the last round, 0 when it did not (the reason is in the monitor's log and /readyz): hns, kubernetes, events, record_dir, replay.", []string{"source"}, nil),
		hnsUp: prometheus.NewDesc("diag_monitor_hns_service_up",
			"1 when the HNS service is running, 0 when it is not.", nil, nil),
		hnsObservable: prometheus.NewDesc("diag_monitor_hns_service_observable",
			"1 when the monitor can read the HNS service's process, 0 when it cannot; reason says why (not_windows, no_service, access_denied, error).", []string{"reason"}, nil),
		hnsThreads: prometheus.NewDesc("diag_monitor_hns_service_threads", "Threads of the HNS service's process.", nil, nil),
		hnsHandles: prometheus.NewDesc("diag_monitor_hns_service_handles", "Handles open in the HNS service's process.", nil, nil),
		hnsMemory:  prometheus.NewDesc("diag_monitor_hns_service_memory_bytes", "Memory of the HNS service's process, by kind (working_set, private).", []string{"kind"}, nil),
		hnsStart:   prometheus.NewDesc("diag_monitor_hns_service_start_time_seconds", "Unix time at which the HNS service's process started.", nil, nil),
	}
})

// stateCollector publishes the last round's state, so that what the round
// did not see (VFP, the HNS service on Linux) is absent, not a stale value.
type stateCollector struct{ m *metrics }

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	m, d := c.m, descs()
	m.mu.Lock()
	st, hns, maxSeries := m.state, m.hns, m.maxSeries
	sources := make(map[string]sourceStatus, len(m.sources))
	for k, v := range m.sources {
		sources[k] = v
	}
	m.mu.Unlock()

	for name, s := range sources {
		ch <- prometheus.MustNewConstMetric(d.source, prometheus.GaugeValue, b2f(s.up), name)
	}
	c.collectHNS(ch, hns)
	if st == nil {
		return
	}
	type series struct{ rule, severity, subject string }
	counts := map[series]int{}
	bySeverity := map[string]int{"fail": 0, "warn": 0, "info": 0, "error": 0}
	for _, f := range st.open {
		sev := f.Severity.String()
		bySeverity[sev]++
		counts[series{f.ID, sev, subjectLabel(f)}]++
	}
	keys := make([]series, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	// Worst first, so that the cap drops infos before fails.
	rank := map[string]int{"error": 0, "fail": 1, "warn": 2, "info": 3}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if rank[a.severity] != rank[b.severity] {
			return rank[a.severity] < rank[b.severity]
		}
		if a.rule != b.rule {
			return a.rule < b.rule
		}
		return a.subject < b.subject
	})
	dropped := 0
	for i, k := range keys {
		if i >= maxSeries {
			dropped += counts[k]
			continue
		}
		ch <- prometheus.MustNewConstMetric(d.finding, prometheus.GaugeValue, float64(counts[k]), k.rule, k.severity, k.subject)
	}
	ch <- prometheus.MustNewConstMetric(d.dropped, prometheus.GaugeValue, float64(dropped))
	for sev, n := range bySeverity {
		ch <- prometheus.MustNewConstMetric(d.findings, prometheus.GaugeValue, float64(n), sev)
	}
	for state, n := range map[string]int{"ran": st.ran, "skipped": st.skipped, "not_applicable": st.notApply, "error": st.errored} {
		ch <- prometheus.MustNewConstMetric(d.rules, prometheus.GaugeValue, float64(n), state)
	}
	for _, kind := range objectKinds {
		ch <- prometheus.MustNewConstMetric(d.objects, prometheus.GaugeValue, float64(st.objects[kind]), kind)
	}
	ch <- prometheus.MustNewConstMetric(d.vfpPresent, prometheus.GaugeValue, b2f(st.vfpTaken))
	if st.vfpTaken {
		ch <- prometheus.MustNewConstMetric(d.noVFP, prometheus.GaugeValue, float64(st.noVFPRule))
	}
	ch <- prometheus.MustNewConstMetric(d.unjudged, prometheus.GaugeValue, b2f(st.unjudged != ""))
}

func (c stateCollector) collectHNS(ch chan<- prometheus.Metric, s HNSServiceStats) {
	d := descs()
	reason := s.Unobservable
	if reason == "" {
		reason = "ok"
	}
	ch <- prometheus.MustNewConstMetric(d.hnsObservable, prometheus.GaugeValue, b2f(s.Unobservable == ""), reason)
	if s.Unobservable != "" {
		return
	}
	ch <- prometheus.MustNewConstMetric(d.hnsUp, prometheus.GaugeValue, b2f(s.Running))
	if !s.Running {
		return
	}
	ch <- prometheus.MustNewConstMetric(d.hnsThreads, prometheus.GaugeValue, float64(s.Threads))
	ch <- prometheus.MustNewConstMetric(d.hnsHandles, prometheus.GaugeValue, float64(s.Handles))
	ch <- prometheus.MustNewConstMetric(d.hnsMemory, prometheus.GaugeValue, float64(s.WorkingSet), "working_set")
	ch <- prometheus.MustNewConstMetric(d.hnsMemory, prometheus.GaugeValue, float64(s.Private), "private")
	if !s.Started.IsZero() {
		ch <- prometheus.MustNewConstMetric(d.hnsStart, prometheus.GaugeValue, float64(s.Started.Unix()))
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
