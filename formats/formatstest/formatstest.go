package formatstest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/formats"
	"github.com/wincni/diag/snapshot"
)

// Load reads the input at path (a bundle, a folder, a paste) into a
// snapshot as diag analyze does with its default limits; an error fails
// the test.
func Load(t testing.TB, path string) *snapshot.Snapshot {
	t.Helper()
	b, err := bundle.Open(path, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := formats.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// CopyBundle copies a bundle directory into a temporary one to edit,
// leaving out the top-level folders named in leave.
func CopyBundle(t testing.TB, src string, leave ...string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		for _, l := range leave {
			if rel == l || strings.HasPrefix(rel, l+string(filepath.Separator)) {
				return nil
			}
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// EditJSON rewrites a JSON array file of a bundle directory (a copy:
// CopyBundle) through edit.
func EditJSON(t testing.TB, dir, name string, edit func([]map[string]any) []map[string]any) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal(data, &objs); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out, err := json.MarshalIndent(edit(objs), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
