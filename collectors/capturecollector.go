package collectors

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wincni/diag/capture"
)

// CaptureCollector captures VXLAN traffic for d into capture/diag.pcapng:
// AF_PACKET on Linux, pktmon on Windows (the one collector that touches
// node state: it adds pktmon filters for the capture and removes them).
func CaptureCollector(d time.Duration) Collector {
	return Collector{ID: "capture", Description: fmt.Sprintf("VXLAN packet capture for %s", d), Timeout: d + 90*time.Second,
		Run: func(ctx context.Context, e *Env, out *Output) error { return collectCapture(ctx, e, out, d) }}
}

func collectCapture(ctx context.Context, e *Env, out *Output, d time.Duration) error {
	dir := e.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	tmp, err := os.MkdirTemp(dir, "diag-capture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "diag.pcapng")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	// pktmon writes its own ETL file and converts it in a folder of its
	// own; the pcapng comes through f. The ETL is kept too: it holds what
	// the conversion leaves out (drop reasons, components).
	etl := filepath.Join(tmp, "diag.etl")
	opts := capture.LiveOptions{Duration: d, Runner: e.Runner, TempDir: tmp, ETLFile: etl}
	// The capture is worth only what happens during it: say so, and how
	// long is left, while the other collectors run.
	out.Logf("capturing VXLAN traffic for %s: reproduce the problem now (retry the failing request); Ctrl-C ends the collection early", d)
	done := make(chan struct{})
	defer close(done)
	go captureCountdown(d, done, out)
	stats, err := capture.Live(ctx, opts, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("capture (%s): %w", stats.Tool, err)
	}
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	out.Logf("captured %d packets with %s", stats.Packets, stats.Tool)
	if stats.Packets == 0 {
		out.Logf("warning: the capture holds no VXLAN packet: no overlay traffic crossed this node while it ran (was the problem reproduced? is the overlay on UDP 4789?)")
	}
	if err := out.WriteBinary("capture/diag.pcapng", r); err != nil {
		return err
	}
	if stats.Tool != "pktmon" {
		return nil
	}
	e2, err := os.Open(etl)
	if err != nil {
		out.Problem(fmt.Errorf("pktmon's ETL file: %w", err))
		return nil
	}
	defer e2.Close()
	return out.WriteBinary("capture/diag.etl", e2)
}

// captureCountdown says the time left every countdownStep until done.
func captureCountdown(d time.Duration, done <-chan struct{}, out *Output) {
	end := time.Now().Add(d)
	t := time.NewTicker(countdownStep)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			if left := end.Sub(now).Round(time.Second); left > 0 {
				out.Logf("capture: %s left", left)
			}
		}
	}
}

// countdownStep is how often the time left of a capture is said.
var countdownStep = 10 * time.Second
