package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bundle anonymize --force when the previous run's key cannot be replaced
// (a folder in its place here; on Windows another program having it open):
// nothing of the previous run is replaced, the new bundle, sidecar, key
// and map are kept together beside it, and one line says where (exit 2).
func TestAnonymizeKeyNotReplaceable(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ticket.zip")
	args := []string{"bundle", "anonymize", seedBroken, "--output-file", out, "--write-map"}
	if r := runDiag(t, nil, false, args...); r.code != 0 {
		t.Fatalf("first anonymize: exit %d: %s", r.code, r.stderr)
	}
	before := map[string]string{}
	for _, s := range []string{"", ".sha256", ".map.json"} {
		b, _ := os.ReadFile(out + s)
		before[s] = string(b)
	}
	os.Remove(out + ".key")
	if err := os.MkdirAll(filepath.Join(out+".key", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := runDiag(t, nil, false, append(args, "--force")...)
	kept := filepath.Join(dir, "ticket.new.zip")
	if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 || !strings.Contains(r.stderr, out+".key could not be replaced") || !strings.Contains(r.stderr, kept) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	for s, was := range before {
		if b, _ := os.ReadFile(out + s); string(b) != was {
			t.Errorf("%s%s was changed", out, s)
		}
	}
	for _, s := range []string{"", ".sha256", ".key", ".map.json"} {
		if _, err := os.Stat(kept + s); err != nil {
			t.Errorf("not kept: %v", err)
		}
	}
	if r := runDiag(t, nil, false, "bundle", "verify", kept); r.code != 0 {
		t.Errorf("verify %s: exit %d %s", kept, r.code, r.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// A run with --force and without --write-map removes the replaced
// bundle's map with it: its pseudonyms are another key's.
func TestAnonymizeForceRemovesOldMap(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ticket.zip")
	if r := runDiag(t, nil, false, "bundle", "anonymize", seedBroken, "--output-file", out, "--write-map"); r.code != 0 {
		t.Fatalf("first anonymize: exit %d: %s", r.code, r.stderr)
	}
	r := runDiag(t, nil, false, "bundle", "anonymize", seedBroken, "--output-file", out, "--force")
	if r.code != 0 || !strings.Contains(r.stderr, "removed "+out+".map.json") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out + ".map.json"); err == nil {
		t.Errorf("%s.map.json is still there", out)
	}
}
