package monitor

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves /metrics, /healthz and /readyz.
//
// /healthz is the loop's liveness: 200 while rounds (or the wait between
// them) go on, 503 when the loop has shown no sign of life for three
// intervals and a round's time (a hung round): the kubelet then restarts
// the pod. /readyz is whether the monitor sees the node: 200 after a good
// round with every source answering, else 503 and the reasons, one a line.
func (mon *Monitor) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(mon.m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		since := mon.o.Now().Sub(time.Unix(0, mon.lastTick.Load()))
		if since > 3*mon.o.Interval+2*time.Minute {
			http.Error(w, fmt.Sprintf("no round and no wait for %s", since.Round(time.Second)), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if problems := mon.NotReady(); len(problems) > 0 {
			http.Error(w, strings.Join(problems, "\n"), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

// NotReady lists why the monitor does not see the node now; none when it
// does.
func (mon *Monitor) NotReady() []string {
	var out []string
	good := mon.lastGood.Load()
	switch {
	case good == 0:
		out = append(out, "no round has run the rules yet")
	case !mon.lastRound.Load():
		out = append(out, "the last round took no state")
	case mon.o.Now().Sub(time.Unix(0, good)) > 3*mon.o.Interval+2*time.Minute:
		out = append(out, fmt.Sprintf("the last good round ended %s ago", mon.o.Now().Sub(time.Unix(0, good)).Round(time.Second)))
	}
	return append(out, mon.m.sourceProblems()...)
}
