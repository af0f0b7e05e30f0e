package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCollectHelperProcess is diag itself when a test runs the test binary
// as a child with DIAG_COLLECT_HELPER set (the arguments, \x1f-separated).
func TestCollectHelperProcess(t *testing.T) {
	args := os.Getenv("DIAG_COLLECT_HELPER")
	if args == "" {
		return
	}
	os.Exit(run(strings.Split(args, "\x1f"), newEnv()))
}

// hangingTools writes ip and bridge into a new directory for PATH: each
// creates the file $DIAG_MARK when it starts, then hangs a minute, so that
// a test stops diag in the middle of a collection. Where the linux-net
// collector and POSIX signals are not, the test is skipped.
func hangingTools(t *testing.T) (bin string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the linux-net collector and POSIX signals")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	bin = t.TempDir()
	script := "#!/bin/sh\n: > \"$DIAG_MARK\"\nexec " + sleep + " 60\n"
	for _, name := range []string{"ip", "bridge"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// diagCommand is the test binary as diag (TestCollectHelperProcess) run
// with args, env added to this process's environment.
func diagCommand(args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCollectHelperProcess$")
	cmd.Env = append(append(os.Environ(), env...), "DIAG_COLLECT_HELPER="+strings.Join(args, "\x1f"))
	return cmd
}

// child is a diag process a test started and stops.
type child struct {
	cmd            *exec.Cmd
	exited         chan error
	stdout, stderr strings.Builder
}

// startUntilMarked starts cmd and waits until the file mark exists (a
// hanging tool has started); if it does not within 30 s the test fails,
// saying what never ran ip.
func startUntilMarked(t *testing.T, cmd *exec.Cmd, mark, what string) *child {
	t.Helper()
	c := &child{cmd: cmd, exited: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = &c.stdout, &c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.exited <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			return c
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-c.exited
			t.Fatalf("%s never ran ip:\n%s", what, c.stderr.String())
		}
	}
}

// stop sends sig and waits for the process to end; 30 s later it is
// killed and the test fails.
func (c *child) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		<-c.exited
		t.Fatalf("still running 30 s after %v:\n%s", sig, c.stderr.String())
	}
}

// checkEmpty fails the test if dir (a child's TMPDIR) holds anything.
func checkEmpty(t *testing.T, dir, after string) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("TMPDIR holds %v after %s", names, after)
	}
}
