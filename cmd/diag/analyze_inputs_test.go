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

// A Windows bundle without HNS state (the HNS collectors unsupported, as
// under Wine or without the Containers feature) is no healthy node: the
// report says why, with the collectors' errors, and the exit status is 3.
func TestAnalyzeWindowsBundleWithoutHNS(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "host"), 0o755)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"format":"diag-bundle","version":1,"node":"win-9","os":"windows",
		"collectors":[{"id":"hns-v2","status":"unsupported","error":"computenetwork.dll: not found"},{"id":"hns-v1","status":"unsupported","error":"vmcompute.dll: not found"},{"id":"os","status":"ok"}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "host", "os.json"), []byte(`{"ProductName":"Windows Server 2022 Datacenter","CurrentBuild":"20348","UBR":2900}`), 0o644)
	r := runDiag(t, nil, false, "analyze", dir)
	if r.code != 3 || !strings.Contains(r.stdout, "no HNS state") || !strings.Contains(r.stderr, "computenetwork.dll: not found") || !strings.Contains(r.stdout, "0 fail, 0 warn") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// --fail-on never is 0 whatever is found, this too; the report says it.
	if r := runDiag(t, nil, false, "analyze", "--fail-on", "never", dir); r.code != 0 || !strings.Contains(r.stdout, "no HNS state") {
		t.Errorf("--fail-on never: exit %d", r.code)
	}
	// A Linux bundle has no HNS and needs none.
	if r := runDiag(t, nil, false, "analyze", "../../testdata/bundles/seed-linux-controlplane"); strings.Contains(r.stdout+r.stderr, "no HNS state") {
		t.Errorf("linux: %s", r.stdout)
	}
}

// An anonymized bundle beside an original one (or another key's): the
// report warns, and pseudonyms are never compared with real addresses, so
// no cross-node or capture finding is made up or lost by the mix.
func TestAnalyzeMixedPseudonyms(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte(strings.Repeat("5f", 32)+"\n"), 0o600)
	anon := filepath.Join(dir, "win.zip")
	if r := runDiag(t, nil, false, "bundle", "anonymize", "--key-file", key, "--output-file", anon, seedBroken); r.code != 0 {
		t.Fatalf("anonymize: %d %s", r.code, r.stderr)
	}
	ids := func(args ...string) (string, string) {
		r := runDiag(t, nil, false, append([]string{"analyze", "-o", "json"}, args...)...)
		var rep struct {
			Findings []struct{ ID, Node string } `json:"findings"`
			Notes    []string                    `json:"notes"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var out []string
		for _, f := range rep.Findings {
			out = append(out, f.ID)
		}
		return strings.Join(out, " "), strings.Join(rep.Notes, "\n")
	}
	linux := "../../testdata/bundles/seed-linux-controlplane"
	mixed, notes := ids(anon, linux)
	alone, _ := ids(linux)
	win, _ := ids(anon)
	if !strings.Contains(notes, "not alike") || strings.Contains(mixed, "XN-") || len(strings.Fields(mixed)) != len(strings.Fields(alone))+len(strings.Fields(win)) {
		t.Errorf("mixed: %q (linux alone %q, windows alone %q)\n%s", mixed, alone, win, notes)
	}
}

// Wrong files are named for what they are, with what to do, exit 2: an
// executable was read as a paste ("no findings", exit 0), a .tar.gz
// bundle said it held no HNS data.
func TestAnalyzeWrongFiles(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ data, says string }{
		"shot.png":  {"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"},
		"diag":      {"\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00", 56), "a Linux executable"},
		"diag.exe":  {"MZ\x90\x00\x03\x00\x00\x00" + strings.Repeat("\x00", 56), "a Windows executable"},
		"b.tar.gz":  {"\x1f\x8b\x08\x00\x00\x00\x00\x00", "tar xzf"},
		"trace.cap": {"\x0a\x0d\x0d\x0a\x1c\x00\x00\x00", "diag capture decode"},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.data), 0o644)
		r := runDiag(t, nil, false, "analyze", p)
		if r.code != 2 || !strings.Contains(r.stderr, c.says) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d %q", name, r.code, r.stderr)
		}
	}
	// Beside a paste in a folder, an image is named in the notes.
	os.WriteFile(filepath.Join(dir, "net.txt"), []byte("Name : vxlan0\nType : Overlay\nManagementIP : 192.168.40.21\n"), 0o644)
	os.Remove(filepath.Join(dir, "diag"))
	os.Remove(filepath.Join(dir, "diag.exe"))
	os.Remove(filepath.Join(dir, "b.tar.gz"))
	os.Remove(filepath.Join(dir, "trace.cap"))
	if r := runDiag(t, nil, false, "analyze", dir); r.code == 2 || !strings.Contains(r.stdout, "not read: shot.png (a PNG image)") {
		t.Errorf("folder: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Windows Firewall and port-range rules do not apply to a Linux node: not
// listed as skipped for want of host/firewall.json; skip reasons read as
// sentences.
func TestLinuxBundleSkipsNoWindowsRules(t *testing.T) {
	r := runDiag(t, nil, false, "analyze", "-o", "json", "../../testdata/bundles/seed-linux-controlplane")
	var rep struct {
		Skipped []struct{ ID, Reason string } `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Skipped {
		if s.ID == "HOST-10" || strings.Contains(s.Reason, "firewall") || strings.Contains(s.Reason, "no this") {
			t.Errorf("%s: %s", s.ID, s.Reason)
		}
	}
}

// rules and version speak JSON with -o json, as analyze does.
func TestRulesAndVersionJSON(t *testing.T) {
	var rule struct{ ID, Severity, Checks string }
	r := runDiag(t, nil, false, "rules", "-o", "json", "OVL-01")
	if err := json.Unmarshal([]byte(r.stdout), &rule); err != nil || rule.ID != "OVL-01" || rule.Checks == "" {
		t.Errorf("rules: %v %q", err, r.stdout)
	}
	var fam []struct{ ID string }
	r = runDiag(t, nil, false, "rules", "-o", "json", "OVL")
	if err := json.Unmarshal([]byte(r.stdout), &fam); err != nil || len(fam) < 5 {
		t.Errorf("family: %v %d", err, len(fam))
	}
	var v struct{ Version, Platform string }
	r = runDiag(t, nil, false, "version", "-o", "json")
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Version == "" || v.Platform == "" {
		t.Errorf("version: %v %q", err, r.stdout)
	}
	if r := runDiag(t, nil, false, "rules", "-o", "yaml"); r.code != 2 {
		t.Errorf("rules -o yaml: exit %d", r.code)
	}
}

// A shell diag has no completion script for is one line, exit 2.
func TestCompletionUnknownShell(t *testing.T) {
	r := runDiag(t, nil, false, "completion", "tcsh")
	if r.code != 2 || !strings.Contains(r.stderr, `no completion script for "tcsh"`) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("exit %d %q", r.code, r.stderr)
	}
	if r := runDiag(t, nil, false, "completion", "bash"); r.code != 0 || !strings.Contains(r.stdout, "bash completion") {
		t.Errorf("bash: exit %d", r.code)
	}
}

// capture start writes to --output-file like every command (-w, tcpdump's
// spelling, stays hidden) and replaces a file only with --force.
func TestCaptureStartOutputFile(t *testing.T) {
	if r := runDiag(t, nil, false, "capture", "start"); r.code != 2 || !strings.Contains(r.stderr, "needs --output-file FILE") {
		t.Errorf("exit %d %q", r.code, r.stderr)
	}
	f := filepath.Join(t.TempDir(), "x.pcapng")
	os.WriteFile(f, []byte("kept"), 0o644)
	for _, flag := range []string{"--output-file", "-w"} {
		if r := runDiag(t, nil, false, "capture", "start", flag, f); r.code != 2 || !strings.Contains(r.stderr, "already exists (--force replaces it)") {
			t.Errorf("%s: exit %d %q", flag, r.code, r.stderr)
		}
	}
}
