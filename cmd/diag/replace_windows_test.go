package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/tools/wine/standin/standintest"
)

// On Windows a file another program has open (a zip viewer, an editor)
// cannot be replaced: collect --force and bundle redact --force keep what
// they wrote beside it, say where in one line, and exit 2; the open file
// is untouched.
func TestReplaceFileHeldOpen(t *testing.T) {
	standintest.Install(t, []standintest.Rule{
		{Tool: "powershell", Stdout: `{"Hostname":"WIN-1","ProductName":"Windows Server 2022 Datacenter","CurrentBuild":20348,"UBR":2227}`},
	})
	for name, args := range map[string][]string{
		"collect":       {"collect", "--only", "os", "--force"},
		"bundle redact": {"bundle", "redact", seedBroken, "--force"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "b.zip")
			if err := os.WriteFile(out, []byte("the last bundle"), 0o600); err != nil {
				t.Fatal(err)
			}
			held, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			r := runDiag(t, map[string]string{"NODE_NAME": "win-1"}, false, append(args, "--output-file", out)...)
			kept := filepath.Join(dir, "b.new.zip")
			last := strings.TrimSpace(r.stderr)
			if i := strings.LastIndexByte(last, '\n'); i >= 0 {
				last = last[i+1:]
			}
			if r.code != 2 || !strings.Contains(last, out+" could not be replaced") || !strings.Contains(last, "the bundle is in "+kept) {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			b, err := bundle.Open(kept, bundle.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if problems, err := bundle.Verify(b); err != nil || len(problems) > 0 {
				t.Errorf("the kept bundle: %v %v", problems, err)
			}
			if data, _ := os.ReadFile(out); string(data) != "the last bundle" {
				t.Errorf("%s changed: %q", out, data)
			}
		})
	}
}
