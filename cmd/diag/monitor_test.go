package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMonitorUsage(t *testing.T) {
	for _, args := range [][]string{
		{"monitor", "--replay"},
		{"monitor", seedBroken},
		{"monitor", "--interval", "10ms", "--replay", seedBroken},
		{"monitor", "--jitter", "0.9", "--replay", seedBroken},
		{"monitor", "--rules", "OVL-1", "--replay", seedBroken},
		{"monitor", "--replay", filepath.Join(t.TempDir(), "missing.zip")},
	} {
		r := runDiag(t, nil, false, args...)
		if r.code != exitUsage || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, r.code, r.stderr)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if r := runDiag(t, nil, false, "monitor", "--listen", ln.Addr().String(), "--replay", seedBroken); r.code != exitUsage || !strings.Contains(r.stderr, "--listen") {
		t.Errorf("a taken --listen: exit %d, stderr %q", r.code, r.stderr)
	}
}

// --events asked of a replay where there are no credentials: exit 2 with
// one line saying so, not a replay that only logs it.
func TestMonitorReplayEventsWithoutCredentials(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	r := runDiag(t, nil, false, "monitor", "--replay", "--events", "--rounds", "1", "--listen", "127.0.0.1:0", seedBroken)
	if r.code != exitUsage || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "--events") {
		t.Errorf("exit %d, stderr %q; want 2 and one line naming --events", r.code, r.stderr)
	}
}

// A replay of the broken and the fixed seed, one round each: exit 0, the
// log says what it serves, and the fail of the first round is recorded.
func TestMonitorReplay(t *testing.T) {
	dir := t.TempDir()
	r := runDiag(t, nil, false, "monitor", "--replay", "--rounds", "2", "--interval", "1s", "--jitter", "0", "--listen", "127.0.0.1:0",
		"--record-dir", dir, seedBroken, filepath.Join(filepath.Dir(seedBroken), "seed-fixed"))
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "serving /metrics") || !strings.Contains(r.stderr, "recorded ") || r.stdout != "" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !strings.Contains(strings.Join(names, " "), "-OVL-01.zip ") {
		t.Errorf("record dir: %v, want the bundle of OVL-01's round", names)
	}
}

// SIGTERM (the pod deleted) in the middle of a live round: the round is
// abandoned (its ip hangs), the monitor exits 0 within seconds, says so,
// and leaves nothing in the temporary directory.
func TestMonitorStopsOnSIGTERM(t *testing.T) {
	bin := hangingTools(t)
	tmp, work := t.TempDir(), t.TempDir()
	mark := filepath.Join(work, "started")
	cmd := diagCommand([]string{"monitor", "--listen", "127.0.0.1:0", "--node", "linux-1"}, "TMPDIR="+tmp, "PATH="+bin, "DIAG_MARK="+mark, "HOME="+work, "KUBECONFIG=")
	ch := startUntilMarked(t, cmd, mark, "the round")
	start := time.Now()
	ch.stop(t, syscall.SIGTERM)
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, ch.stderr.String())
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s to stop", took)
	}
	if !strings.Contains(ch.stderr.String(), "terminated") || !strings.Contains(ch.stderr.String(), "stopped") {
		t.Errorf("no word of the signal:\n%s", ch.stderr.String())
	}
	checkEmpty(t, tmp, "SIGTERM")
}
