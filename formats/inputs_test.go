package formats

import (
	"archive/zip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyDir copies a fixture folder.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// zipDir zips a fixture folder as diag writes bundles.
func zipDir(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		_, err = io.Copy(w, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

func bases(paths []string) string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return strings.Join(out, " ")
}

// An upload unpacked with one folder or zip per node is one input per
// node; loose files beside them are named, not merged into a node.
func TestExpandFolderOfBundles(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "../testdata/bundles/seed-broken", filepath.Join(dir, "node-a"))
	zipDir(t, "../testdata/bundles/seed-linux-controlplane", filepath.Join(dir, "node-b.zip"))
	copyDir(t, "../testdata/collectlogs/seed-broken", filepath.Join(dir, "case", "win-c"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("customer says DNS fails since Monday\n"), 0o644)
	in, err := ExpandInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := bases(in.Paths); got != "win-c node-a node-b.zip" {
		t.Errorf("inputs: %s", got)
	}
	if len(in.Notes) != 1 || !strings.Contains(in.Notes[0], "notes.txt") {
		t.Errorf("notes: %q", in.Notes)
	}
	// A bundle folder itself, and a folder of loose files, stay one input.
	for _, p := range []string{filepath.Join(dir, "node-a"), "../testdata/text"} {
		if in, err := ExpandInput(p); err != nil || len(in.Paths) != 1 || in.Paths[0] != p {
			t.Errorf("%s: %+v %v", p, in, err)
		}
	}
}

// The folder diag collect --cluster writes is read as the collection
// cluster.json describes: the nodes' bundles, and a note for each node
// that gave none.
func TestExpandClusterOutput(t *testing.T) {
	dir := t.TempDir()
	zipDir(t, "../testdata/bundles/seed-broken", filepath.Join(dir, "winw1.zip"))
	zipDir(t, "../testdata/bundles/seed-linux-controlplane", filepath.Join(dir, "controlplane.zip"))
	rep := map[string]any{"tool": "diag", "nodes": []map[string]any{
		{"name": "winw1", "status": "ok", "bundle": "winw1.zip"},
		{"name": "controlplane", "status": "partial", "bundle": "controlplane.zip"},
		{"name": "winw2", "status": "timeout", "reason": "no bundle within --node-timeout 10m0s"},
	}}
	data, _ := json.Marshal(rep)
	os.WriteFile(filepath.Join(dir, "cluster.json"), data, 0o644)
	in, err := ExpandInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := bases(in.Paths); got != "winw1.zip controlplane.zip" {
		t.Errorf("inputs: %s", got)
	}
	if len(in.Notes) != 1 || !strings.Contains(in.Notes[0], "winw2 gave no bundle (timeout") {
		t.Errorf("notes: %q", in.Notes)
	}
	// Nested one level down (the ticket's folder inside an upload) too.
	up := t.TempDir()
	if err := os.Rename(dir, filepath.Join(up, "ticket-4711")); err != nil {
		t.Fatal(err)
	}
	if in, err := ExpandInput(up); err != nil || len(in.Paths) != 2 {
		t.Errorf("nested: %+v %v", in, err)
	}
}
