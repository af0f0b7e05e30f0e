package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/tools/wine/standin/standintest"
)

// A 2-second capture whose pktmon filter list hangs ends well before the
// 30 s a long capture's set-up gets, with one line and exit 2: the node's
// tool is stuck, diag is not at fault.
func TestCaptureStartPktmonHangs(t *testing.T) {
	standintest.Install(t, []standintest.Rule{{Tool: "pktmon", Args: "filter list", Hang: true}, {Tool: "pktmon"}})
	out := filepath.Join(t.TempDir(), "out.pcapng")
	start := time.Now()
	r := runDiag(t, nil, false, "capture", "start", "--duration", "2s", "--output-file", out)
	took := time.Since(start)
	if r.code != 2 || !strings.Contains(r.stderr, "pktmon filter list did not finish within 5s") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
	if took > 20*time.Second {
		t.Errorf("took %s", took)
	}
}

// pktmon stop refused after a good start: exit 2, one line saying pktmon
// may still be capturing and how to stop it.
func TestCaptureStartPktmonStopDenied(t *testing.T) {
	standintest.Install(t, []standintest.Rule{
		{Tool: "pktmon", Args: "filter list", Stdout: "There are no packet filters.\r\n"},
		{Tool: "pktmon", Args: "start", Stdout: "Logger Parameters: ...\r\n"},
		{Tool: "pktmon", Args: "stop", Stdout: "Access is denied.\r\n", Exit: 5},
		{Tool: "pktmon"},
	})
	out := filepath.Join(t.TempDir(), "out.pcapng")
	r := runDiag(t, nil, false, "capture", "start", "--duration", "100ms", "--output-file", out)
	if r.code != 2 || !strings.Contains(r.stderr, "pktmon may still be capturing") || !strings.Contains(r.stderr, "pktmon stop") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}
