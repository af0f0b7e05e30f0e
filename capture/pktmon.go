package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Runner runs a command with an argument list (never a shell string) and
// returns its combined output.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// ExecRunner runs commands with os/exec.
type ExecRunner struct{}

// Run runs name with args.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// pktmonCapture drives pktmon: a filter on each VXLAN port, a capture of
// whole packets (--pkt-size 0: the default keeps 128 bytes, too few for
// VXLAN), stop, and conversion to pcapng. It refuses to touch filters
// someone else set, and removes its own.
func pktmonCapture(ctx context.Context, r Runner, opts LiveOptions, outPath string) (LiveStats, error) {
	stats := LiveStats{Tool: "pktmon"}
	run := func(args ...string) ([]byte, error) {
		out, err := r.Run(ctx, "pktmon", args...)
		if err != nil {
			return out, fmt.Errorf("pktmon %s: %w: %s", strings.Join(args, " "), err, firstLine(out))
		}
		return out, nil
	}
	list, err := run("filter", "list")
	if err != nil {
		return stats, err
	}
	if hasPktmonFilters(string(list)) {
		return stats, errors.New("pktmon already has packet filters (pktmon filter list): remove them, or capture by hand with pktmon")
	}
	for _, p := range opts.VXLANPorts {
		if _, err := run("filter", "add", "diag-vxlan-"+strconv.Itoa(int(p)), "-t", "UDP", "-p", strconv.Itoa(int(p))); err != nil {
			run("filter", "remove")
			return stats, err
		}
	}
	defer run("filter", "remove")
	dir := opts.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	etl := filepath.Join(dir, "diag-capture.etl")
	if _, err := run("start", "--capture", "--pkt-size", "0", "--file-name", etl); err != nil {
		return stats, err
	}
	timer := time.NewTimer(opts.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	// Stop and convert even when interrupted: keep what was captured.
	stopCtx := context.WithoutCancel(ctx)
	if out, err := r.Run(stopCtx, "pktmon", "stop"); err != nil {
		return stats, fmt.Errorf("pktmon stop: %w: %s", err, firstLine(out))
	}
	if out, err := r.Run(stopCtx, "pktmon", "etl2pcap", etl, "--out", outPath); err != nil {
		return stats, fmt.Errorf("pktmon etl2pcap: %w: %s", err, firstLine(out))
	}
	return stats, nil
}

// hasPktmonFilters reads `pktmon filter list`: "Packet Filters:" followed
// by a table, or a line saying there are none.
func hasPktmonFilters(out string) bool {
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimSpace(strings.ToLower(line))
		if strings.Contains(l, "no filter") || strings.Contains(l, "none") {
			return false
		}
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			if _, err := strconv.Atoi(f[0]); err == nil {
				rows++
			}
		}
	}
	return rows > 0
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
