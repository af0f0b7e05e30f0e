package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/wincni/diag/collectors"
	"github.com/wincni/diag/manifest"
)

// collectView shows progress on stderr: on a terminal one live line per
// collector, otherwise a plain line per event.
type collectView struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	order   []string
	state   map[string]string
	started map[string]time.Time
	counts  map[string]int // collectors ended, by status
	drawn   int
	stop    chan struct{}
	done    sync.WaitGroup
	closed  bool
	width   func() int // the console's columns: each live line fits in one row
}

func newCollectView(w io.Writer, live bool, plan []collectors.Collector) *collectView {
	v := &collectView{w: w, live: live, state: map[string]string{}, started: map[string]time.Time{}, counts: map[string]int{}, stop: make(chan struct{}),
		width: func() int { return consoleWidth(w) }}
	for _, c := range plan {
		v.order = append(v.order, c.ID)
		v.state[c.ID] = "waiting"
	}
	if live {
		v.done.Add(1)
		go func() {
			defer v.done.Done()
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					v.mu.Lock()
					v.redraw()
					v.mu.Unlock()
				case <-v.stop:
					return
				}
			}
		}()
	}
	return v
}

func (v *collectView) event(ev collectors.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !ev.Done {
		v.started[ev.ID] = time.Now()
		v.state[ev.ID] = "running"
		if !v.live {
			fmt.Fprintf(v.w, "collect: %s started\n", ev.ID)
		}
	} else {
		s := fmt.Sprintf("%s in %s, %d files", ev.Status, ev.Duration.Round(time.Millisecond), ev.Files)
		if ev.Err != "" {
			s = fmt.Sprintf("%s in %s: %s", ev.Status, ev.Duration.Round(time.Millisecond), ev.Err)
		}
		v.state[ev.ID] = s
		v.counts[ev.Status]++
		if !v.live {
			fmt.Fprintf(v.w, "collect: %s %s\n", ev.ID, s)
		}
	}
	v.redraw()
}

// line prints a message above the live lines.
func (v *collectView) line(s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.live && v.drawn > 0 {
		fmt.Fprintf(v.w, "\x1b[%dA\x1b[J", v.drawn)
		v.drawn = 0
	}
	fmt.Fprintln(v.w, "collect: "+s)
	v.redraw()
}

func (v *collectView) redraw() {
	if !v.live || v.closed {
		return
	}
	if v.drawn > 0 {
		fmt.Fprintf(v.w, "\x1b[%dA", v.drawn)
	}
	for _, id := range v.order {
		s := v.state[id]
		if s == "running" {
			s = fmt.Sprintf("running %s", time.Since(v.started[id]).Round(100*time.Millisecond))
		}
		fmt.Fprintf(v.w, "\x1b[2K%s\n", fitWidth(fmt.Sprintf("  %-15s %s", id, s), v.width()))
	}
	v.drawn = len(v.order)
}

// summary counts the collectors by how they ended.
func (v *collectView) summary() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var parts []string
	for _, st := range []string{manifest.StatusOK, manifest.StatusPartial, manifest.StatusFailed, manifest.StatusTimeout, manifest.StatusSkipped, manifest.StatusUnsupported} {
		if n := v.counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(parts, ", ")
}

func (v *collectView) close() {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.redraw()
	v.closed = true
	v.mu.Unlock()
	close(v.stop)
	v.done.Wait()
}
