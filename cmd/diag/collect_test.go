package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// diag collect on this Linux machine writes a bundle that bundle verify
// accepts and analyze reads.
func TestCollectOnThisLinuxNode(t *testing.T) {
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("iproute2 is not installed")
	}
	out := filepath.Join(t.TempDir(), "node.zip")
	r := runDiag(t, map[string]string{"NODE_NAME": "linux-1"}, false, "collect", "--output", out, "--skip", "kubernetes", "--timeout", "1m")
	if r.code != 0 && r.code != 3 {
		t.Fatalf("collect: exit %d\n%s", r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) != out {
		t.Errorf("stdout %q, want the bundle's path", r.stdout)
	}
	for _, want := range []string{"collect: linux-net started", "collect: linux-net ok", "collect: os ok"} {
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
