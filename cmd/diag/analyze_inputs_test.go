package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder holding several bundles is each of them: three nodes, not one
// made up of all three (which invented HOST-09 "2 HNS networks are named
// Calico" and a second OVL-01).
func TestAnalyzeFolderOfBundles(t *testing.T) {
	r := runDiag(t, nil, false, "analyze", "-o", "json", "../../testdata/bundles")
	var rep struct {
		Inputs []struct {
			Path, Node string
		} `json:"inputs"`
		Findings []struct {
			ID, Node string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	if len(rep.Inputs) != 3 {
		t.Errorf("%d inputs: %+v", len(rep.Inputs), rep.Inputs)
	}
	for _, f := range rep.Findings {
		if f.ID == "HOST-09" {
			t.Errorf("a finding the merge made up: %+v", f)
		}
	}
	if !strings.Contains(r.stderr, "3 bundle(s): seed-broken, seed-fixed, seed-linux-controlplane") {
		t.Errorf("stderr: %q", r.stderr)
	}
}

// One unreadable input among several: the others are reported, the
// unreadable one is named in the report and on stderr, exit 2.
func TestAnalyzeOneUnreadableInput(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("the customer says pods cannot resolve names since the upgrade\n"), 0o644)
	r := runDiag(t, nil, false, "analyze", seedBroken, notes)
	if r.code != 2 || !strings.Contains(r.stdout, "OVL-01") || !strings.Contains(r.stdout, "not read: ") || !strings.Contains(r.stderr, "1 of 2 input(s) could not be read") || !strings.Contains(r.stderr, "notes.txt") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Alone, it is the error it always was.
	if r := runDiag(t, nil, false, "analyze", notes); r.code != 2 || r.stdout != "" {
		t.Errorf("alone: exit %d %q", r.code, r.stdout)
	}
}
