package diff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

const (
	seedBroken = "../testdata/bundles/seed-broken"
	seedFixed  = "../testdata/bundles/seed-fixed"
)

// editJSON rewrites a JSON array file of a bundle through edit.
func editJSON(t testing.TB, dir, name string, edit func([]map[string]any) []map[string]any) {
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
