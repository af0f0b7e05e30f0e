package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wincni/diag/collectors"
)

// diag collect on this Linux machine writes a bundle that bundle verify
// accepts and analyze reads.
func TestCollectOnThisLinuxNode(t *testing.T) {
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("iproute2 is not installed")
	}
	out := filepath.Join(t.TempDir(), "node.zip")
	r := runDiag(t, map[string]string{"NODE_NAME": "linux-1"}, false, "collect", "--output-file", out, "--skip", "kubernetes", "--timeout", "1m")
	if r.code != 0 && r.code != 3 {
		t.Fatalf("collect: exit %d\n%s", r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) != out {
		t.Errorf("stdout %q, want the bundle's path", r.stdout)
	}
	for _, want := range []string{"collect: linux-net started", "collect: linux-net ok", "collect: os ok", "collect: wrote " + out + " (collectors: "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.stderr)
		}
	}
	if _, err := os.Stat(out + ".sha256"); err != nil {
		t.Errorf("no sidecar checksum: %v", err)
	}
	if v := runDiag(t, nil, false, "bundle", "verify", out); v.code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	s := runDiag(t, nil, false, "snapshot", out)
	if s.code != 0 || !strings.Contains(s.stdout, "linux-1") {
		t.Fatalf("snapshot: exit %d\n%s", s.code, s.stderr)
	}
	a := runDiag(t, nil, false, "analyze", "-o", "json", out)
	if a.code != 0 && a.code != 3 {
		t.Fatalf("analyze: exit %d\n%s", a.code, a.stderr)
	}
}

// Nothing is written outside the output path and the temporary directory,
// and the temporary directory is left as it was.
func TestCollectWritesOnlyItsOutput(t *testing.T) {
	cwd, tmp, outDir := t.TempDir(), t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(outDir, "b.zip")
	r := runDiag(t, nil, false, "collect", "--output-file", out, "--only", "os,"+netCollector())
	if r.code != 0 && r.code != 3 {
		t.Fatalf("collect: exit %d %s", r.code, r.stderr)
	}
	for dir, want := range map[string]int{cwd: 0, tmp: 0, outDir: 2} {
		entries, _ := os.ReadDir(dir)
		if len(entries) != want {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("%s holds %v, want %d entries", dir, names, want)
		}
	}
}

// The default name is diag-<node>-<UTC time>.zip in the current directory.
func TestCollectDefaultName(t *testing.T) {
	wineStandInPowerShell(t) // --only os must exit 0
	t.Chdir(t.TempDir())
	r := runDiag(t, map[string]string{"NODE_NAME": "win-1"}, false, "collect", "--only", "os")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "diag-win-1-20261122T050000Z.zip" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat("diag-win-1-20261122T050000Z.zip"); err != nil {
		t.Error(err)
	}
}

// On a terminal, progress is one live line per collector, redrawn in place.
func TestCollectLiveProgress(t *testing.T) {
	var buf strings.Builder
	plan := []collectors.Collector{{ID: "hns-v2"}, {ID: "vfp"}}
	v := newCollectView(&buf, true, plan)
	v.event(collectors.Event{ID: "hns-v2"})
	v.event(collectors.Event{ID: "hns-v2", Done: true, Status: "ok", Duration: 1200 * time.Millisecond, Files: 11})
	v.event(collectors.Event{ID: "vfp", Done: true, Status: "timeout", Err: "no answer within its 3m0s timeout"})
	v.close()
	got := buf.String()
	for _, want := range []string{"\x1b[2A", "\x1b[2K  hns-v2          running", "hns-v2          ok in 1.2s, 11 files", "vfp             timeout in 0s: no answer"} {
		if !strings.Contains(got, want) {
			t.Errorf("live output lacks %q:\n%q", want, got)
		}
	}
}

// With --capture (root only: AF_PACKET), the bundle holds the capture.
func TestCollectCapture(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("live capture needs root")
	}
	out := filepath.Join(t.TempDir(), "b.zip")
	r := runDiag(t, nil, false, "collect", "--output-file", out, "--only", "capture", "--capture", "500ms")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	a := runDiag(t, nil, false, "analyze", "-o", "json", out)
	if a.code != 0 || !strings.Contains(a.stdout, `"CAP-04"`) {
		t.Errorf("analyze did not see the capture: exit %d\n%s", a.code, a.stdout)
	}
}

// The analysis memory budget raises the soft limit with each bundle and
// gives it back; a GOMEMLIMIT set by the user is left alone.
func TestMemoryBudget(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	m := newMemoryBudget(false)
	m.add(1 << 20)
	if got := debug.SetMemoryLimit(-1); got != minMemoryLimit {
		t.Errorf("small input: limit %d, want the floor %d", got, minMemoryLimit)
	}
	m.add(100 << 20)
	if want := int64(101<<20) * memoryPercentOfInput / 100; debug.SetMemoryLimit(-1) != want {
		t.Errorf("limit %d, want %d", debug.SetMemoryLimit(-1), want)
	}
	// A bundle's capture gets what diag capture decode gives its flows,
	// where that is more.
	m.flows(200000)
	if got, want := debug.SetMemoryLimit(-1), captureMemoryLimit(200000); got != want {
		t.Errorf("with 200,000 flows: limit %d, want %d", got, want)
	}
	m.flows(0)
	if got, want := debug.SetMemoryLimit(-1), captureMemoryLimit(200000); got != want {
		t.Errorf("fewer flows lowered the limit to %d", got)
	}
	m.restore()
	if got := debug.SetMemoryLimit(-1); got != orig {
		t.Errorf("restored %d, want %d", got, orig)
	}
	user := newMemoryBudget(true)
	user.add(1 << 30)
	if got := debug.SetMemoryLimit(-1); got != orig {
		t.Errorf("a user's GOMEMLIMIT was overridden: %d", got)
	}
}

// A collector that cannot do all its work makes the bundle partial: exit 3,
// and the bundle is still written and verifiable.
func TestCollectPartialExit3(t *testing.T) {
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("iproute2 is not installed")
	}
	bin := t.TempDir()
	if err := os.Symlink(ip, filepath.Join(bin, "ip")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin) // ip, but no bridge
	out := filepath.Join(t.TempDir(), "b.zip")
	r := runDiag(t, nil, false, "collect", "--output-file", out, "--only", "linux-net")
	if r.code != 3 || !strings.Contains(r.stderr, "partial") || !strings.Contains(r.stderr, "bridge") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if v := runDiag(t, nil, false, "bundle", "verify", out); v.code != 0 {
		t.Errorf("verify: exit %d %s", v.code, v.stderr)
	}
}

// An existing output is refused before anything is collected (exit 2, one
// line, the file untouched); --force replaces it.
func TestCollectExistingOutput(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(t.TempDir(), "b.zip")
	if err := os.WriteFile(out, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runDiag(t, nil, false, "collect", "--output-file", out, "--only", "os")
	if r.code != 2 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "already exists (--force replaces it)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != "keep me" {
		t.Errorf("the existing file was changed: %q", got)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("a refused collection left %d entries in TMPDIR", len(entries))
	}

	wineStandInPowerShell(t) // --force must exit 0
	r = runDiag(t, nil, false, "collect", "--output-file", out, "--only", "os", "--force")
	if r.code != 0 || strings.TrimSpace(r.stdout) != out {
		t.Fatalf("--force: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if v := runDiag(t, nil, false, "bundle", "verify", out); v.code != 0 {
		t.Errorf("the replaced bundle does not verify: exit %d %s", v.code, v.stderr)
	}

	dir := t.TempDir()
	r = runDiag(t, nil, false, "collect", "--output-file", dir, "--only", "os", "--force")
	if r.code != 2 || !strings.Contains(r.stderr, "is a directory") {
		t.Errorf("a directory as output: exit %d, stderr %q", r.code, r.stderr)
	}
}

// An output directory that cannot be written is found before collecting.
func TestCollectUnwritableOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix directory modes: chmod 0500 leaves a folder writable")
	}
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		dir = "/sys" // root writes any mode; sysfs takes no new files
		if f, err := os.CreateTemp(dir, "probe-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
			t.Skip("running as root with a writable /sys: no unwritable directory to try")
		}
	} else if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	r := runDiag(t, nil, false, "collect", "--output-file", filepath.Join(dir, "b.zip"), "--only", "os,"+netCollector())
	if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "is not writable") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "started") {
		t.Errorf("collected before refusing: %q", r.stderr)
	}
}

// SIGTERM (a HostProcess pod deleted) and SIGHUP (an SSH session dropped)
// stop a collection like Ctrl-C: the bundle holds what was collected, exit 3,
// and nothing is left in the temporary directory.
func TestCollectStopsOnSignals(t *testing.T) {
	bin := hangingTools(t)
	for _, c := range []struct {
		name  string
		nohup bool // started with SIGHUP ignored: a hangup changes nothing, SIGTERM stops
		sig   syscall.Signal
	}{{"SIGTERM", false, syscall.SIGTERM}, {"SIGHUP", false, syscall.SIGHUP}, {"nohup", true, syscall.SIGTERM}} {
		sig := c.sig
		t.Run(c.name, func(t *testing.T) {
			tmp, work := t.TempDir(), t.TempDir()
			out, mark := filepath.Join(work, "b.zip"), filepath.Join(work, "started")
			cmd := diagCommand([]string{"collect", "--output-file", out, "--only", "linux-net", "--timeout", "1m"}, "TMPDIR="+tmp, "PATH="+bin, "DIAG_MARK="+mark)
			if c.nohup {
				env := cmd.Env
				cmd = exec.Command("/bin/sh", append([]string{"-c", `trap "" HUP; exec "$0" "$@"`}, cmd.Args...)...)
				cmd.Env = env
			}
			ch := startUntilMarked(t, cmd, mark, "the collector")
			if c.nohup {
				if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				select {
				case <-ch.exited:
					t.Fatalf("started with SIGHUP ignored, a hangup ended it: %v\n%s", cmd.ProcessState, ch.stderr.String())
				case <-time.After(300 * time.Millisecond):
				}
			}
			ch.stop(t, sig)
			if code := cmd.ProcessState.ExitCode(); code != 3 {
				t.Errorf("exit %d (%v), want 3 (a partial bundle)\n%s", code, cmd.ProcessState, ch.stderr.String())
			}
			if !strings.Contains(ch.stderr.String(), "stopping; the bundle will hold what was collected so far") {
				t.Errorf("no word of the signal:\n%s", ch.stderr.String())
			}
			if strings.TrimSpace(ch.stdout.String()) != out {
				t.Errorf("stdout %q, want the bundle's path", ch.stdout.String())
			}
			checkEmpty(t, tmp, sig.String())
			if v := runDiag(t, nil, false, "bundle", "verify", out); v.code != 0 {
				t.Errorf("verify: exit %d %s", v.code, v.stderr)
			}
		})
	}
}

// netCollector is a network collector of the platform the test runs on.
func netCollector() string {
	if runtime.GOOS == "windows" {
		return "host-adapters"
	}
	return "linux-net"
}
