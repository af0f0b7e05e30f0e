package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
)

// The sidecar b.zip.sha256 held open by another program (an editor, a
// file manager's preview) while b.zip itself is free: the output must not
// be left as a zip whose sidecar names another zip's checksum, and the
// command is not "a bug in diag" (exit 1) but one line and exit 2, as when
// the zip is held.
func TestReplaceSidecarHeldOpen(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.zip")
	if r := runDiag(t, nil, false, "bundle", "redact", seedBroken, "--output-file", out); r.code != 0 {
		t.Fatalf("first redact: exit %d: %s", r.code, r.stderr)
	}
	held, err := os.Open(out + ".sha256")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	r := runDiag(t, nil, false, "bundle", "redact", seedFixed, "--output-file", out, "--force")
	if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("exit %d, stderr %q; want exit 2 with one line", r.code, r.stderr)
	}
	b, err := bundle.Open(out, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if problems, err := bundle.Verify(b); err != nil || len(problems) > 0 {
		t.Errorf("%s after the failed replacement: %v %v", out, problems, err)
	}
}
