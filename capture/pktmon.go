package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wincni/diag/hostexec"
)

// Runner runs the node's tools (pktmon).
type Runner = hostexec.Runner

// pktmonCommandTimeout bounds each pktmon command that only sets up or
// asks (filter list, add, remove, start): a pktmon stuck on its driver
// must not keep a 2-second capture running for ever. Each is given the
// capture's own length, at least pktmonSetupMin (they answer in well under
// a second on a healthy node) and at most this (setupTimeout).
var pktmonCommandTimeout = 30 * time.Second

const pktmonSetupMin = 5 * time.Second

// setupTimeout bounds a set-up command of a capture of duration d.
func setupTimeout(d time.Duration) time.Duration {
	return min(pktmonCommandTimeout, max(pktmonSetupMin, d))
}

// pktmonFinishTimeout bounds stop and etl2pcap. They run when the capture
// was interrupted too (to keep what it got), so Ctrl-C does not end them:
// this does.
var pktmonFinishTimeout = 2 * time.Minute

// pktmonCapture drives pktmon: a filter on each VXLAN port, a capture of
// whole packets (--pkt-size 0: the default keeps 128 bytes, too few for
// VXLAN) into an ETL file of its own, stop, conversion to pcapng in a
// private folder, then that pcapng, read and counted, copied to out. It
// refuses to touch filters someone else set, and removes its own.
func pktmonCapture(ctx context.Context, r Runner, opts LiveOptions, out io.Writer) (LiveStats, error) {
	stats := LiveStats{Tool: "pktmon"}
	setup := setupTimeout(opts.Duration)
	run := func(ctx context.Context, timeout time.Duration, args ...string) ([]byte, error) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		b, err := r.Run(cctx, "pktmon", args...)
		if err != nil {
			err = pktmonError(args, b, err, cctx, timeout)
			if h, ok := err.(*toolHung); ok && timeout == setup {
				h.note = fmt.Sprintf("set-up commands are given the capture's length, %s to %s", pktmonSetupMin, pktmonCommandTimeout)
			}
			return b, err
		}
		return b, nil
	}
	list, err := run(ctx, setup, "filter", "list")
	if err != nil {
		return stats, err
	}
	if hasPktmonFilters(string(list)) {
		return stats, errors.New("pktmon already has packet filters (pktmon filter list): remove them, or capture by hand with pktmon")
	}
	// Filters are removed even when interrupted: they would narrow the
	// next pktmon capture of whoever runs one.
	removeFilters := func() {
		run(context.WithoutCancel(ctx), setup, "filter", "remove")
	}
	for _, p := range opts.VXLANPorts {
		if _, err := run(ctx, setup, "filter", "add", "diag-vxlan-"+strconv.Itoa(int(p)), "-t", "UDP", "-p", strconv.Itoa(int(p))); err != nil {
			removeFilters()
			return stats, err
		}
	}
	defer removeFilters()
	dir := opts.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	work, err := os.MkdirTemp(dir, "diag-pktmon-")
	if err != nil {
		return stats, err
	}
	defer os.RemoveAll(work)
	etl := opts.ETLFile
	if etl == "" {
		etl = filepath.Join(work, "capture.etl")
	}
	if _, err := run(ctx, setup, "start", "--capture", "--pkt-size", "0", "--file-name", etl); err != nil {
		return stats, err
	}
	timer := time.NewTimer(opts.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	// Stop and convert even when interrupted: keep what was captured,
	// unless told to abandon it.
	finish := opts.Abort
	if finish == nil {
		finish = context.WithoutCancel(ctx)
	}
	if _, err := run(finish, pktmonFinishTimeout, "stop"); err != nil {
		// The capture started: refused or stuck, it may still run and
		// fill its file until someone stops it.
		return stats, &stillCapturing{err}
	}
	pcap := filepath.Join(work, "capture.pcapng")
	if _, err := run(finish, pktmonFinishTimeout, "etl2pcap", etl, "--out", pcap); err != nil {
		return stats, err
	}
	n, err := copyCapture(out, pcap)
	stats.Packets = n
	if err != nil {
		return stats, fmt.Errorf("pktmon etl2pcap: %w", err)
	}
	return stats, nil
}

// copyCapture copies the capture file at path to out and counts its
// packets: what pktmon converted must be a capture, not whatever it left.
func copyCapture(out io.Writer, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("no pcapng written: %w", err)
	}
	defer f.Close()
	src, err := NewSource(io.TeeReader(f, out), path)
	if err != nil {
		return 0, fmt.Errorf("not a capture: %w", err)
	}
	var n int64
	var p Packet
	for {
		err := src.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, fmt.Errorf("%s: %w", path, err)
		}
		n++
	}
	// What the reader had no need to read (padding, trailing blocks) is
	// part of the file all the same.
	if _, err := io.Copy(out, f); err != nil {
		return n, err
	}
	return n, nil
}

// errAccessDenied is pktmon refusing a user who is not an Administrator.
type errAccessDenied struct{ cmd string }

func (e errAccessDenied) Error() string   { return e.cmd + ": Access is denied." }
func (errAccessDenied) Is(err error) bool { return err == os.ErrPermission }

// pktmonError says why a pktmon command failed: refused (matching
// os.ErrPermission), timed out, or what it printed when it printed
// anything.
func pktmonError(args []string, out []byte, err error, cctx context.Context, timeout time.Duration) error {
	cmd := "pktmon " + strings.Join(args, " ")
	if strings.Contains(string(out), "Access is denied") || strings.Contains(err.Error(), "Access is denied") {
		return errAccessDenied{cmd}
	}
	if errors.Is(cctx.Err(), context.Canceled) {
		return fmt.Errorf("%s: %w", cmd, context.Canceled)
	}
	if errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return &toolHung{cmd: cmd, timeout: timeout}
	}
	return &toolFailed{cmd: cmd, err: err, line: hostexec.FirstLine(string(out))}
}

// toolFailed is a pktmon command that failed on the node (a parameter the
// node's pktmon refuses, its driver not loaded, pktmon missing): the
// node's tool, not diag, so the command line exits 2 with what it printed.
type toolFailed struct {
	cmd  string
	err  error
	line string // the first line it printed, if any
}

func (e *toolFailed) Error() string {
	if e.line != "" {
		return fmt.Sprintf("%s: %v: %s", e.cmd, e.err, e.line)
	}
	return fmt.Sprintf("%s: %v", e.cmd, e.err)
}

func (e *toolFailed) Unwrap() error  { return e.err }
func (e *toolFailed) BadInput() bool { return true }

// toolHung is a pktmon command that did not answer in time and was ended:
// the node's pktmon is stuck or busy (its driver), not diag's doing.
type toolHung struct {
	cmd     string
	timeout time.Duration
	note    string // how the timeout was chosen
}

func (e *toolHung) Error() string {
	note := ""
	if e.note != "" {
		note = "; " + e.note
	}
	return fmt.Sprintf("%s did not finish within %s (ended%s): pktmon is stuck or busy on this node (pktmon status)", e.cmd, e.timeout, note)
}

// BadInput: the node's tool failed, diag did not; the command line exits 2.
func (e *toolHung) BadInput() bool { return true }

// stillCapturing is pktmon stop failing after a good start: pktmon may go
// on capturing until stopped by hand.
type stillCapturing struct{ err error }

func (e *stillCapturing) Error() string {
	return fmt.Sprintf("%v; pktmon may still be capturing: stop it as Administrator with pktmon stop (then pktmon filter remove)", e.err)
}

func (e *stillCapturing) Unwrap() error  { return e.err }
func (e *stillCapturing) BadInput() bool { return true }

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
