package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/golden"
	"github.com/wincni/diag/manifest"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/bundle"
)

const seedBroken = "../../testdata/bundles/seed-broken"
const seedFixed = "../../testdata/bundles/seed-fixed"

type result struct {
	code           int
	stdout, stderr string
}

func runDiag(t *testing.T, vars map[string]string, tty bool, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		stdout: &out, stderr: &errb,
		getenv:         func(k string) string { return vars[k] },
		now:            func() time.Time { return time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC) },
		isTerminal:     func() bool { return tty },
		termWidth:      func() int { return 120 },
		stderrTerminal: func() bool { return false },
	}
	code := run(args, e)
	return result{code, out.String(), errb.String()}
}

func TestAnalyzeSeed(t *testing.T) {
	r := runDiag(t, nil, false, "analyze", seedBroken)
	if r.code != 3 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"FAIL", "OVL-01", "10.0.2.15", "10.20.30.10", `VXLAN_ADAPTER = "Ethernet 2"`, "1 fail, 0 warn"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" || strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("stderr %q; colour in non-TTY output: %v", r.stderr, strings.Contains(r.stdout, "\x1b["))
	}

	fixed := runDiag(t, nil, false, "analyze", seedFixed)
	if fixed.code != 3 || !strings.Contains(fixed.stdout, "HOST-05") || strings.Contains(fixed.stdout, "OVL-01") {
		t.Errorf("fixed: exit %d\n%s%s", fixed.code, fixed.stdout, fixed.stderr)
	}
	both := runDiag(t, nil, false, "analyze", seedFixed, seedBroken)
	if both.code != 3 || strings.Count(both.stdout, "winw1  [") != 2 {
		t.Errorf("two bundles: exit %d\n%s", both.code, both.stdout)
	}
}

func TestFailOn(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--fail-on", "warn", seedBroken}, 3},
		{[]string{"--fail-on", "info", "--skip-rules", "HOST-05", seedFixed}, 0},
		{[]string{"--fail-on", "fail", seedFixed}, 3},
		{[]string{"--skip-rules", "OVL-01", seedBroken}, 0},
		{[]string{"--rules", "ovl-02", seedBroken}, 0},
		{[]string{"--rules", "OVL", seedBroken}, 3},
	} {
		r := runDiag(t, nil, false, append([]string{"analyze"}, c.args...)...)
		if r.code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, r.code, c.code, r.stderr)
		}
	}
}

func TestAnalyzeJSONContract(t *testing.T) {
	r := runDiag(t, nil, false, "analyze", "-o", "json", seedBroken)
	if r.code != 3 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schemaVersion"] != float64(1) {
		t.Errorf("schemaVersion = %v", doc["schemaVersion"])
	}
	findings, _ := doc["findings"].([]any)
	if len(findings) != 1 {
		t.Fatalf("findings = %v", doc["findings"])
	}
	f := findings[0].(map[string]any)
	for _, key := range []string{"id", "severity", "node", "summary", "evidence", "remediation"} {
		if _, ok := f[key]; !ok {
			t.Errorf("finding lacks the public key %q", key)
		}
	}
	if f["id"] != "OVL-01" || f["severity"] != "fail" || f["node"] != "winw1" {
		t.Errorf("finding = %v", f)
	}
	if _, ok := doc["skipped"].([]any); !ok {
		t.Errorf("skipped must be an array, got %v", doc["skipped"])
	}
}

func TestColour(t *testing.T) {
	tty := runDiag(t, nil, true, "analyze", seedBroken)
	if !strings.Contains(tty.stdout, "\x1b[") {
		t.Error("no colour on a terminal")
	}
	noColor := runDiag(t, map[string]string{"NO_COLOR": "1"}, true, "analyze", seedBroken)
	if strings.Contains(noColor.stdout, "\x1b[") {
		t.Error("colour despite NO_COLOR")
	}
	never := runDiag(t, nil, true, "--color", "never", "analyze", seedBroken)
	if strings.Contains(never.stdout, "\x1b[") {
		t.Error("colour despite --color never")
	}
}

// writeZip writes a zip of name → content pairs.
func writeZip(t *testing.T, path string, build func(zw *zip.Writer)) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	build(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func entry(zw *zip.Writer, name, content string) {
	w, _ := zw.Create(name)
	io.WriteString(w, content)
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	dir := t.TempDir()
	notZip := filepath.Join(dir, "ticket.txt")
	// Prose, not console output (a prompt with an HNS cmdlet and nothing
	// after it is an empty result, which diag reads as such).
	os.WriteFile(notZip, []byte("Pods on win-1 cannot reach CoreDNS since Monday.\nAny idea?\n"), 0o600)

	randomFile := filepath.Join(dir, "random.bin")
	os.WriteFile(randomFile, []byte{0x00, 0x13, 0xfe, 0x80, 0x01}, 0o600)

	good := writeZip(t, filepath.Join(dir, "good.zip"), func(zw *zip.Writer) {
		entry(zw, "hns/v1/networks.json", strings.Repeat(`[{"Name":"Calico","Type":"Overlay"}]`, 1)+strings.Repeat(" ", 4000))
	})
	data, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.zip")
	os.WriteFile(truncated, data[:len(data)/2], 0o600)

	bomb := writeZip(t, filepath.Join(dir, "bomb.zip"), func(zw *zip.Writer) {
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: "hns/v1/networks.json", Method: zip.Deflate,
			CompressedSize64: 2, UncompressedSize64: 64 << 30})
		w.Write([]byte{3, 0})
	})
	symlink := writeZip(t, filepath.Join(dir, "symlink.zip"), func(zw *zip.Writer) {
		h := &zip.FileHeader{Name: "hns/v1/networks.json"}
		h.SetMode(os.ModeSymlink | 0o777)
		w, _ := zw.CreateHeader(h)
		io.WriteString(w, "/etc/shadow")
	})
	many := writeZip(t, filepath.Join(dir, "many.zip"), func(zw *zip.Writer) {
		for i := 0; i <= bundle.DefaultLimits.MaxEntries; i++ {
			zw.CreateHeader(&zip.FileHeader{Name: "logs/" + strings.Repeat("x", 3) + string(rune('a'+i%26)) + "/" + itoa(i), Method: zip.Store})
		}
	})
	zipOf := func(name string, pairs ...string) string {
		return writeZip(t, filepath.Join(dir, name), func(zw *zip.Writer) {
			for i := 0; i < len(pairs); i += 2 {
				entry(zw, pairs[i], pairs[i+1])
			}
		})
	}
	cases := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.zip"), notExistWords},
		{"not a zip, not any format", notZip, "cannot identify the input"},
		{"random bytes", randomFile, "cannot identify the input"},
		{"truncated", truncated, "truncated or corrupt"},
		{"zip bomb", bomb, "too large"},
		{"zip slip", zipOf("slip.zip", "../../../../tmp/evil", "x"), "escapes the bundle"},
		{"absolute", zipOf("abs.zip", "/etc/passwd", "x"), "absolute path"},
		{"symlink", symlink, "symbolic link"},
		{"duplicate", zipOf("dup.zip", "hns/v1/networks.json", "[]", "hns/v1/networks.json", "[]"), "duplicate entry"},
		{"too many entries", many, "more than the limit"},
		{"bad manifest", zipOf("manifest.zip", "manifest.json", "{"), "manifest.json"},
		{"malformed HNS JSON", zipOf("json.zip", "hns/v1/networks.json", "[\n{\"Name\": \"Calico\",\n \"Type\" \"Overlay\"}]"), "hns/v1/networks.json: invalid JSON at line 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runDiag(t, nil, false, "analyze", c.path)
			if r.code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", r.code, r.stderr)
			}
			line := strings.TrimSuffix(r.stderr, "\n")
			if strings.Contains(line, "\n") || !strings.HasPrefix(line, "diag: ") {
				t.Errorf("stderr is not one diag: line: %q", r.stderr)
			}
			if !strings.Contains(line, filepath.Base(c.path)) || !strings.Contains(line, c.want) {
				t.Errorf("stderr %q does not name the file and %q", line, c.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout: %q", r.stdout)
			}
		})
	}
	if _, err := os.Stat("/tmp/evil"); err == nil {
		t.Error("zip slip wrote outside the bundle")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"analyze"},
		{"analyze", "--bogus", seedBroken},
		{"analyze", "-o", "xml", seedBroken},
		{"analyze", "--fail-on", "sometimes", seedBroken},
		{"analyze", "--rules", "NOPE-01", seedBroken},
		{"frobnicate"},
		{"--color", "purple", "version"},
		{"rules", "XYZ-99"},
		{"rules", "a", "b"},
		{"bundle", "verify"},
		{"bundle"},
		{"collect", "--only", "no-such-collector"},
		{"collect", "--timeout", "0s"},
		{"collect", "extra-arg"},
		{"capture", "decode", "x.pcapng"},
	} {
		r := runDiag(t, nil, false, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "diag: ") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

func TestRulesCommand(t *testing.T) {
	list := runDiag(t, nil, false, "rules")
	if list.code != 0 || !strings.Contains(list.stdout, "OVL-01") || !strings.Contains(list.stdout, "OVL-02") {
		t.Errorf("rules: %d\n%s", list.code, list.stdout)
	}
	one := runDiag(t, nil, false, "rules", "ovl-01")
	for _, want := range []string{"OVL-01", "WHAT IT CHECKS", "WHY IT MATTERS", "HOW TO FIX", "SOURCES", "VXLAN_ADAPTER"} {
		if !strings.Contains(one.stdout, want) {
			t.Errorf("rules OVL-01 lacks %q", want)
		}
	}
}

func TestBundleVerify(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.zip")
	w, err := bundle.Create(out, manifest.Manifest{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	w.WriteFile("hns/v1/networks.json", []byte("[]"))
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if r := runDiag(t, nil, false, "bundle", "verify", out); r.code != 0 || !strings.Contains(r.stdout, "ok") {
		t.Errorf("verify good: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// Tamper: same manifest, other content.
	b, _ := bundle.Open(out, bundle.DefaultLimits)
	manifest, _ := b.ReadFile("manifest.json")
	b.Close()
	writeZip(t, out, func(zw *zip.Writer) {
		entry(zw, "manifest.json", string(manifest))
		entry(zw, "hns/v1/networks.json", `[{"Name":"x"}]`)
	})
	r := runDiag(t, nil, false, "bundle", "verify", out)
	if r.code != 3 || !strings.Contains(r.stdout, "hns/v1/networks.json: checksum") || !strings.Contains(r.stderr, "b.zip does not match") {
		t.Errorf("verify tampered: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// A hand-assembled directory has no checksums to verify: it says so,
	// and is not reported corrupt.
	if r := runDiag(t, nil, false, "bundle", "verify", seedBroken); r.code != 0 || !strings.Contains(r.stdout, "nothing verified: its manifest lists no files") || strings.Contains(r.stdout, "unlisted") {
		t.Errorf("verify hand-assembled: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

func TestHelpHasExamplesAndExitStatus(t *testing.T) {
	ran := false
	var all [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Name() == "help" {
			return
		}
		all = append(all, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(newRootCommand(newEnv(), &ran), nil)
	if len(all) < 10 {
		t.Fatalf("only %d commands found", len(all))
	}
	for _, args := range all {
		r := runDiag(t, nil, false, append(args, "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout, "EXIT STATUS") || !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("%v --help: exit %d, has EXIT STATUS %v, Examples %v", args, r.code,
				strings.Contains(r.stdout, "EXIT STATUS"), strings.Contains(r.stdout, "Examples:"))
		}
	}
	if r := runDiag(t, nil, false, "completion", "bash"); r.code != 0 || !strings.Contains(r.stdout, "bash completion") {
		t.Errorf("completion: %d", r.code)
	}
	if r := runDiag(t, nil, false, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "diag ") || !strings.Contains(r.stdout, "(commit ") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
}

func TestAnalyzePastedText(t *testing.T) {
	r := runDiag(t, nil, false, "analyze", "../../testdata/text/seed-broken-get-hnsnetwork.txt")
	if r.code != 3 || !strings.Contains(r.stdout, "OVL-01") || !strings.Contains(r.stdout, "10.0.2.15") || !strings.Contains(r.stdout, "10.20.30.10") {
		t.Errorf("broken paste: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runDiag(t, nil, false, "analyze", "../../testdata/text/seed-fixed-get-hnsnetwork.txt")
	if r.code != 0 {
		t.Errorf("fixed paste: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestSnapshotCommand(t *testing.T) {
	r := runDiag(t, nil, false, "snapshot", "../../testdata/text/calico-get-hnsendpoint.txt")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	var s struct {
		Format    string `json:"format"`
		Endpoints []struct {
			IP      string   `json:"ip"`
			Unknown []string `json:"unknown"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Format != "loose files" || len(s.Endpoints) != 2 || s.Endpoints[0].IP != "100.244.206.67" || len(s.Endpoints[0].Unknown) == 0 {
		t.Errorf("snapshot: %+v", s)
	}
}

func TestReportFormats(t *testing.T) {
	for format, want := range map[string]string{
		"markdown": "| **FAIL** | OVL-01 |",
		"html":     `data-broken="vtep"`,
		"json":     `"schemaVersion": 1`,
		"table":    "| FAIL     | OVL-01 |",
	} {
		r := runDiag(t, nil, false, "analyze", "-o", format, seedBroken)
		if r.code != 3 || !strings.Contains(r.stdout, want) {
			t.Errorf("-o %s: exit %d, output lacks %q", format, r.code, want)
		}
	}
	// A report read in a ticket carries each rule's explanation, and no
	// link that may not resolve where it is read.
	for _, format := range []string{"markdown", "html"} {
		r := runDiag(t, nil, false, "analyze", "-o", format, seedBroken)
		if !strings.Contains(r.stdout, "NAT address 10.0.2.15, must be the node's InternalIP") && !strings.Contains(r.stdout, "NAT address 10.0.2.15, must be the node&#39;s InternalIP") || strings.Contains(r.stdout, "docs/rules.md") {
			t.Errorf("-o %s: the rule's text is missing, or a link to docs/rules.md is there", format)
		}
	}
	out := filepath.Join(t.TempDir(), "report.html")
	r := runDiag(t, nil, true, "analyze", "-o", "html", "--output-file", out, seedBroken)
	data, err := os.ReadFile(out)
	if r.code != 3 || r.stdout != "" || err != nil || !strings.Contains(string(data), "10.0.2.15") {
		t.Errorf("--output-file: exit %d, stdout %q, %v", r.code, r.stdout, err)
	}
}

func TestCaptureDecode(t *testing.T) {
	sample := "../../testdata/captures/seed-syn-unanswered.pcap"
	r := runDiag(t, nil, false, "capture", "decode", sample)
	if r.code != 3 || !strings.Contains(r.stdout, "CAP-02") || !strings.Contains(r.stdout, "10.20.30.10 → 10.0.2.15") {
		t.Errorf("decode: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runDiag(t, nil, false, "capture", "decode", "-o", "json", "--bundle", seedBroken, sample)
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"schemaVersion", "packets", "vxlanPackets", "tunnels", "flows", "findings"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("capture JSON lacks %q", key)
		}
	}
	if doc["packets"] != float64(4) || len(doc["skipped"].([]any)) != 0 {
		t.Errorf("packets %v skipped %v", doc["packets"], doc["skipped"])
	}
	for _, format := range []string{"markdown", "html"} {
		r := runDiag(t, nil, false, "capture", "decode", "-o", format, sample)
		if r.code != 3 || !strings.Contains(r.stdout, "CAP-02") {
			t.Errorf("-o %s: exit %d", format, r.code)
		}
		// Tunnels and flows are in every format, not only the findings.
		if !strings.Contains(r.stdout, "10.20.30.10") || !strings.Contains(r.stdout, "syn-sent") {
			t.Errorf("-o %s lacks the tunnel or the flow:\n%s", format, r.stdout)
		}
	}
	// Bad captures: exit 2, one line naming the file.
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pcapng")
	os.WriteFile(garbage, []byte("not a capture at all"), 0o600)
	good, _ := os.ReadFile(sample)
	truncated := filepath.Join(dir, "cut.pcap")
	os.WriteFile(truncated, good[:len(good)-7], 0o600)
	// A file cut short is read up to the cut, as tshark reads it, and the
	// report says where it was cut.
	if r := runDiag(t, nil, false, "capture", "decode", truncated); r.code != 3 || !strings.Contains(flat(r.stdout), "cut short in") || !strings.Contains(flat(r.stdout), "the 3 packets before it are reported") {
		t.Errorf("cut file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{garbage, filepath.Join(dir, "missing.pcap")} {
		r := runDiag(t, nil, false, "capture", "decode", p)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, filepath.Base(p)) {
			t.Errorf("%s: exit %d, stderr %q", p, r.code, r.stderr)
		}
	}
	if r := runDiag(t, nil, false, "capture", "decode", "--vxlan-port", "70000", sample); r.code != 2 {
		t.Errorf("bad port: exit %d", r.code)
	}
}

// The seed from both sides: the Windows bundle shows the cause (OVL-01),
// the capture in the Linux bundle the symptom (CAP-02), and together they
// show that the Linux node's FDB sends winw1's pods to its own NAT address
// (XN-01, XN-03).
func TestAnalyzeBundleCaptures(t *testing.T) {
	r := runDiag(t, nil, false, "analyze", "-o", "json", seedBroken, "../../testdata/bundles/seed-linux-controlplane")
	var doc struct {
		Findings []struct{ ID, Node, Input string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range doc.Findings {
		got[f.ID] = f.Node
	}
	if r.code != 3 || got["OVL-01"] != "winw1" || got["CAP-02"] != "controlplane" || got["XN-01"] != "cluster" || got["XN-03"] != "cluster" || len(doc.Findings) != 4 {
		t.Errorf("exit %d findings %+v", r.code, doc.Findings)
	}
	if r := runDiag(t, nil, false, "analyze", "--skip-rules", "CAP", seedBroken, "../../testdata/bundles/seed-linux-controlplane"); strings.Contains(r.stdout, "CAP-02") {
		t.Error("--skip-rules CAP did not skip the capture rules")
	}
}

// docs/rules.md is generated from the registry; it must match.
func TestRulesDocInSync(t *testing.T) {
	r := runDiag(t, nil, false, "rules", "-o", "markdown")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	golden.Check(t, "../../docs/rules.md", []byte(r.stdout))
	for _, id := range []string{"OVL-01", "OVL-02", "HOST-01", "CAP-02"} {
		if !strings.Contains(r.stdout, "## "+id) {
			t.Errorf("docs lack %s", id)
		}
	}
}

// flat joins what the table wrapped: a note naming a file wraps where the
// file's path ends, and temporary paths differ in length from one machine
// (or Wine) to another.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }
