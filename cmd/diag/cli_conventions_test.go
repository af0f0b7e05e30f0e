package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// diag rules FAMILY lists the family; a misspelled ID gets a suggestion.
func TestRulesFamilyAndSuggestions(t *testing.T) {
	r := runDiag(t, nil, false, "rules", "CAP")
	if r.code != 0 || !strings.Contains(r.stdout, "CAP-01") || !strings.Contains(r.stdout, "CAP-09") || strings.Contains(r.stdout, "OVL-01") {
		t.Errorf("rules CAP: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for arg, want := range map[string]string{"OVL01": "did you mean OVL-01?", "SCV-03": "did you mean SVC-03?", "XYZ": `no rule or family "XYZ" (`} {
		r := runDiag(t, nil, false, "rules", arg)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("rules %s: exit %d %q", arg, r.code, r.stderr)
		}
	}
}

// --fail-on never exits 0 whatever is found; "-" reads standard input.
func TestFailOnNeverAndStdin(t *testing.T) {
	if r := runDiag(t, nil, false, "analyze", "--fail-on", "never", seedBroken); r.code != 0 || !strings.Contains(r.stdout, "OVL-01") {
		t.Errorf("--fail-on never: exit %d", r.code)
	}
	paste := "PS C:\\> Get-HnsEndpoint | Format-Table ID, IPAddress, IsRemoteEndpoint\n\nID                                   IPAddress   IsRemoteEndpoint\n--                                   ---------   ----------------\n0c8f2a71-55d3-4e0b-9b1e-3a2f6c7d8e90 10.244.1.14             True\n"
	r := runDiagStdin(t, paste, "analyze", "-o", "json", "-")
	if r.code != 0 || !strings.Contains(r.stdout, `"standard input"`) || !strings.Contains(r.stdout, "a table of ID, IPAddress, IsRemoteEndpoint") {
		t.Errorf("stdin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runDiagStdin(t, "", "analyze", "-")
	if r.code != 2 || !strings.Contains(r.stderr, "standard input: cannot identify the input: it is empty") {
		t.Errorf("empty stdin: exit %d %q", r.code, r.stderr)
	}
}

func runDiagStdin(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb strings.Builder
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }, now: func() time.Time { return time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC) },
		isTerminal: func() bool { return false }, termWidth: func() int { return 120 }, stderrTerminal: func() bool { return false }}
	code := run(args, e)
	return result{code, out.String(), errb.String()}
}

// Each bad collect flag gets one line naming the valid range, before
// anything is collected.
func TestCollectFlagRanges(t *testing.T) {
	out := t.TempDir() + "/b.zip"
	for _, c := range []struct{ args, want string }{
		{"--parallel 0", "--parallel must be between 1 and 64, not 0"},
		{"--max-log-bytes -1", "--max-log-bytes must be at least 1"},
		{"--capture -5s", "--capture must be 0 (no capture) or a positive duration"},
	} {
		r := runDiag(t, nil, false, append([]string{"collect", "--output-file", out}, strings.Fields(c.args)...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d %q", c.args, r.code, r.stderr)
		}
	}
}

// Unknown subcommands get one line with cobra's suggestion.
func TestUnknownSubcommands(t *testing.T) {
	for args, want := range map[string]string{
		"analyse x":         `unknown command "analyse" for "diag"; did you mean analyze?`,
		"bundle verfy x":    `unknown command "verfy" for "diag bundle"; did you mean verify?`,
		"bundle frobnicate": `unknown command "frobnicate" for "diag bundle" (see diag bundle --help)`,
	} {
		r := runDiag(t, nil, false, strings.Fields(args)...)
		if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d %q", args, r.code, r.stderr)
		}
	}
}

// Long work shows progress on a terminal's stderr, never on stdout, and
// clears it; off a terminal it says nothing.
func TestAnalyzeProgress(t *testing.T) {
	defer func(d time.Duration) { progressAfter = d }(progressAfter)
	progressAfter = 0
	var out, errb strings.Builder
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, now: time.Now,
		isTerminal: func() bool { return false }, termWidth: func() int { return 120 }, stderrTerminal: func() bool { return true }}
	if code := run([]string{"analyze", "-o", "json", seedBroken, seedFixed}, e); code != 3 {
		t.Fatalf("exit %d %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "reading 2/2: "+seedFixed) || !strings.HasSuffix(errb.String(), "\r\033[K") || strings.Contains(out.String(), "reading") {
		t.Errorf("stderr %q", errb.String())
	}
	if r := runDiag(t, nil, false, "analyze", "-o", "json", seedBroken, seedFixed); r.stderr != "" {
		t.Errorf("progress off a terminal: %q", r.stderr)
	}
}

// collect and bundle redact write their file with --output-file; the old
// -o/--output still works with a deprecation notice, and the two together
// are refused.
func TestOutputFileSpelling(t *testing.T) {
	dir := t.TempDir()
	out := dir + "/new.zip"
	if r := runDiag(t, nil, false, "bundle", "redact", seedBroken, "--output-file", out); r.code != 0 || strings.Contains(r.stderr, "deprecated") {
		t.Errorf("--output-file: exit %d %q", r.code, r.stderr)
	}
	old := dir + "/old.zip"
	r := runDiag(t, nil, false, "bundle", "redact", seedBroken, "-o", old)
	if r.code != 0 || !strings.Contains(r.stderr, "diag bundle redact: -o/--output is deprecated, use --output-file") || !strings.Contains(r.stdout, "old.zip") {
		t.Errorf("-o: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	for _, cmd := range [][]string{{"bundle", "redact", seedBroken}, {"collect", "--only", "os"}} {
		r := runDiag(t, nil, false, append(cmd, "-o", dir+"/a.zip", "--output-file", dir+"/b.zip")...)
		if r.code != 2 || !strings.Contains(r.stderr, "give --output-file only") {
			t.Errorf("%v with both: exit %d %q", cmd, r.code, r.stderr)
		}
	}
}

// capture decode's flags: a value that does not parse and one out of
// range get the same one line, naming what the flag takes.
func TestCaptureFlagRanges(t *testing.T) {
	const sample = "../../testdata/captures/seed-syn-unanswered.pcap"
	for _, c := range []struct{ args, want string }{
		{"--vni 99999999", "--vni must be a VXLAN network identifier, 1 to 16777215 (24 bits), not 99999999"},
		{"--vni -1", `--vni must be a VXLAN network identifier, 1 to 16777215 (24 bits), not "-1"`},
		{"--mtu -5", "--mtu must be an MTU in bytes, 576 to 65535"},
		{"--vxlan-port abc", `--vxlan-port must be UDP ports, 1 to 65535, comma-separated, not "abc"`},
		{"--vxlan-port 8472,70000", "--vxlan-port must be UDP ports, 1 to 65535, comma-separated, not 70000"},
		{"--max-flows x", `--max-flows must be a whole number, not "x"`},
	} {
		r := runDiag(t, nil, false, append(append([]string{"capture", "decode"}, strings.Fields(c.args)...), sample)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "strconv") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d %q", c.args, r.code, r.stderr)
		}
	}
	if r := runDiag(t, nil, false, "capture", "decode", "--fail-on", "never", "--mtu", "1500", "--vni", "4096", sample); r.code != 0 || !strings.Contains(r.stdout, "CAP-02") {
		t.Errorf("--fail-on never: exit %d %q", r.code, r.stderr)
	}
}

// A Linux node without Kubernetes context: "no findings" says what was
// checked, which rules do not apply and why, in the table and the JSON.
func TestNoFindingsSaysWhatWasChecked(t *testing.T) {
	dir := t.TempDir()
	src := "../../testdata/bundles/seed-linux-controlplane"
	for _, name := range []string{"linux/ip-neigh.json", "linux/bridge-fdb.json", "linux/ip-link.json", "linux/ip-addr.json", "linux/ip-route.json"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, "linux"), 0o755)
		os.WriteFile(filepath.Join(dir, name), data, 0o600)
	}
	r := runDiag(t, nil, false, "analyze", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "no findings") || !regexp.MustCompile(`checked: \d+ rules? ran \((MTU|OVL) \d`).MatchString(r.stdout) ||
		!regexp.MustCompile(`\d+ HNS, VFP and Windows rules do not apply to a Linux node`).MatchString(r.stdout) {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runDiag(t, nil, false, "analyze", "-o", "json", dir)
	var doc struct {
		Inputs []struct {
			Checked struct {
				Ran           []string       `json:"ran"`
				NotApplicable map[string]int `json:"notApplicable"`
			} `json:"checked"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Inputs) != 1 || len(doc.Inputs[0].Checked.Ran) == 0 || doc.Inputs[0].Checked.NotApplicable["linux"] == 0 {
		t.Errorf("JSON checked: %v %+v", err, doc.Inputs)
	}
	// A node with findings keeps its table; the line is for empty reports.
	if r := runDiag(t, nil, false, "analyze", seedBroken); strings.Contains(r.stdout, "checked:") {
		t.Errorf("a report with findings has the checked line:\n%s", r.stdout)
	}
}

// --output-file: the report arrives whole through a temporary file renamed
// into place, nothing else is left in the directory, and a directory that
// does not exist is one line, exit 2.
func TestOutputFileWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.json")
	if err := os.WriteFile(out, []byte("the last good report"), 0o600); err != nil {
		t.Fatal(err)
	}
	// An existing report is replaced only with --force, as a bundle is:
	// one rule for every command.
	if r := runDiag(t, nil, false, "analyze", "-o", "json", "--output-file", out, seedBroken); r.code != 2 || !strings.Contains(r.stderr, "already exists (--force replaces it)") {
		t.Errorf("without --force: exit %d %q", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"diff", "--output-file", out, seedBroken, seedBroken},
		{"capture", "decode", "--output-file", out, "../../testdata/captures/seed-syn-unanswered.pcap"},
	} {
		if r := runDiag(t, nil, false, args...); r.code != 2 || !strings.Contains(r.stderr, "already exists (--force replaces it)") {
			t.Errorf("%s without --force: exit %d %q", args[0], r.code, r.stderr)
		}
	}
	r := runDiag(t, nil, false, "analyze", "-o", "json", "--force", "--output-file", out, seedBroken)
	data, err := os.ReadFile(out)
	if r.code != 3 || err != nil || !json.Valid(data) || !strings.Contains(string(data), "OVL-01") || r.stdout != "" {
		t.Errorf("exit %d, %v, stdout %q, file %.80q", r.code, err, r.stdout, data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want the report only", len(entries))
	}
	// Windows has no Unix modes: there the file is as the folder makes it.
	if st, err := os.Stat(out); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o644) {
		t.Errorf("report mode: %v %v", st.Mode(), err)
	}
	r = runDiag(t, nil, false, "capture", "decode", "--output-file", filepath.Join(dir, "no", "such", "r.txt"), "../../testdata/captures/seed-syn-unanswered.pcap")
	if r.code != 2 || !strings.Contains(r.stderr, "write report: "+filepath.Join(dir, "no", "such", "r.txt")+": ") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("missing directory: exit %d %q", r.code, r.stderr)
	}
}

// Words a flag or command takes are read in any case, as --fail-on and
// rule IDs always were: the same output as in lower case, never exit 2.
func TestAnyCase(t *testing.T) {
	seed := "../../testdata/bundles/seed-broken"
	for _, c := range [][2][]string{
		{{"analyze", "-o", "JSON", seed}, {"analyze", "-o", "json", seed}},
		{{"--color", "Never", "analyze", seed}, {"--color", "never", "analyze", seed}},
		{{"rules", "-o", "Markdown"}, {"rules", "-o", "markdown"}},
		{{"version", "-o", "JSON"}, {"version", "-o", "json"}},
		{{"snapshot", "-o", "JSON", seed}, {"snapshot", "-o", "json", seed}},
		{{"diff", "-o", "Json", seed, seed}, {"diff", "-o", "json", seed, seed}},
		{{"completion", "PowerShell"}, {"completion", "powershell"}},
		{{"Rules", "ovl-01"}, {"rules", "OVL-01"}},
	} {
		got, want := runDiag(t, nil, false, c[0]...), runDiag(t, nil, false, c[1]...)
		if got.code == 2 || got.code != want.code || got.stdout != want.stdout {
			t.Errorf("%v: exit %d (%q), %v: exit %d", c[0], got.code, got.stderr, c[1], want.code)
		}
	}
}
