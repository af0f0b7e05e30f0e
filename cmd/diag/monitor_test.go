package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	if runtime.GOOS != "linux" {
		t.Skip("the linux-net collector and POSIX signals")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	bin, tmp, work := t.TempDir(), t.TempDir(), t.TempDir()
	mark := filepath.Join(work, "started")
	script := "#!/bin/sh\n: > \"$DIAG_MARK\"\nexec " + sleep + " 60\n"
	for _, name := range []string{"ip", "bridge"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCollectHelperProcess$")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PATH="+bin, "DIAG_MARK="+mark, "HOME="+work, "KUBECONFIG=",
		"DIAG_COLLECT_HELPER="+strings.Join([]string{"monitor", "--listen", "127.0.0.1:0", "--node", "linux-1"}, "\x1f"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the round never ran ip:\n%s", stderr.String())
		}
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("still running 30 s after SIGTERM:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, stderr.String())
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s to stop", took)
	}
	if !strings.Contains(stderr.String(), "terminated") || !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("no word of the signal:\n%s", stderr.String())
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("TMPDIR holds %v after SIGTERM", names)
	}
}
