package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The limits of analyze: the capture decoder's flags reach the captures
// inside bundles and their notes reach the report; --max-part-size skips a
// part with a note naming the flag; bad values are usage errors.
func TestAnalyzeLimits(t *testing.T) {
	r := runDiag(t, nil, false, "analyze", "-o", "json", "--max-packet-size", "60", "../../testdata/bundles/seed-linux-controlplane")
	if !strings.Contains(r.stdout, "capture: ") || !strings.Contains(r.stdout, "--max-packet-size raises the limit") || strings.Contains(r.stdout, `"CAP-02"`) {
		t.Errorf("capture limit in analyze: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hns", "v1"), 0o755)
	os.MkdirAll(filepath.Join(dir, "config", "kube-proxy"), 0o755)
	os.WriteFile(filepath.Join(dir, "hns", "v1", "networks.json"), []byte(`[{"ID":"AA-1","Name":"flannel.4096","Type":"Overlay","ManagementIP":"10.0.0.5"}]`), 0o600)
	os.WriteFile(filepath.Join(dir, "config", "kube-proxy", "cmdline.txt"), []byte(strings.Repeat("x", 2<<20)), 0o600)
	r = runDiag(t, nil, false, "analyze", dir)
	flat := strings.Join(strings.Fields(r.stdout), " ")
	if !strings.Contains(flat, "skipped config/kube-proxy/cmdline.txt (2 MiB)") || !strings.Contains(flat, "--max-part-size raises the limit") {
		t.Errorf("part over the limit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = runDiag(t, nil, false, "analyze", "--max-part-size", "256MiB", dir); strings.Contains(r.stdout, "skipped config") {
		t.Errorf("--max-part-size 256MiB still skips the command line:\n%s", r.stdout)
	}
	for _, bad := range [][]string{{"--max-part-size", "lots"}, {"--max-flows", "0"}} {
		if r := runDiag(t, nil, false, append(append([]string{"analyze"}, bad...), dir)...); r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d %q", bad, r.code, r.stderr)
		}
	}
}
