package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder keeps what Check reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.errs = append(r.errs, f) }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "want.txt")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nb\n"))
	Check(r, path, []byte("a\nc\n"))
	Check(r, path, []byte("a\nb"))
	Check(r, filepath.Join(t.TempDir(), "missing"), nil)
	if len(r.errs) != 3 || !strings.Contains(r.errs[0], "differs at line") || !strings.Contains(r.errs[1], "in length") || !strings.Contains(r.errs[2], "-update") {
		t.Errorf("reports %q", r.errs)
	}
}

func TestCommands(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	doc := "intro\n```\nnot this\n```\n<!-- m -->\ntext\n```sh\ndiag collect   # a comment\n\n# only a comment\ndiag analyze x.zip\n```\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Commands(t, path, "<!-- m -->")
	if strings.Join(got, "|") != "diag collect|diag analyze x.zip" {
		t.Errorf("got %q", got)
	}
	r := &recorder{TB: t}
	Commands(r, path, "<!-- other -->")
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "no complete block") {
		t.Errorf("a missing marker: %q", r.errs)
	}
}
