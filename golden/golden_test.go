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
