package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/redact"
)

// Planted secrets: none of these values may appear in a redacted bundle.
var plantedSecrets = []string{
	"hunter2-Very-Secret",
	"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJlLXNlY3JldA",
	"MIIEpAIBAAKCAQEAplantedprivatekeybody",
	"AKIAPLANTEDKEY123456",
	"s3cr3t-client-value",
}

const plantedLog = `I1122 05:00:01 kube-proxy starting --kubeconfig=C:\k\config
I1122 05:00:02 password=hunter2-Very-Secret
I1122 05:00:03 Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJlLXNlY3JldA
-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEAplantedprivatekeybody
-----END RSA PRIVATE KEY-----
uploading with AKIAPLANTEDKEY123456 to s3
node IP 10.20.30.11 on Ethernet 2
`

const plantedCNI = `{"cniVersion": "0.3.0", "name": "planted", "clientSecret": "s3cr3t-client-value"}`

// copyTree copies a testdata directory into a temporary one: tests never
// write into the repository.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// encodeAs writes text as one of diag's inputs may hold it, by turn:
// UTF-8, CRLF, UTF-8 with BOM, UTF-16LE with and without BOM, UTF-16BE
// with BOM.
func encodeAs(text string, turn int) []byte {
	crlf := strings.ReplaceAll(text, "\n", "\r\n")
	u16 := func(be bool) []byte {
		var b []byte
		for _, u := range utf16.Encode([]rune(crlf)) {
			if be {
				b = append(b, byte(u>>8), byte(u))
			} else {
				b = append(b, byte(u), byte(u>>8))
			}
		}
		return b
	}
	switch turn % 6 {
	case 0:
		return []byte(text)
	case 1:
		return []byte(crlf)
	case 2:
		return append([]byte("\ufeff"), crlf...)
	case 3:
		return append([]byte{0xFF, 0xFE}, u16(false)...)
	case 4:
		return u16(false)
	default:
		return append([]byte{0xFE, 0xFF}, u16(true)...)
	}
}

// readZip returns every entry of a zip.
func readZip(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = data
	}
	return out
}

func checkNoSecrets(t *testing.T, out string) {
	t.Helper()
	raw := []string{}
	for name, data := range readZip(t, out) {
		raw = append(raw, name+"\n"+string(data))
	}
	sidecar, _ := os.ReadFile(out + ".sha256")
	raw = append(raw, string(sidecar))
	for _, s := range plantedSecrets {
		for _, r := range raw {
			if strings.Contains(r, s) {
				t.Errorf("secret %q left in the redacted bundle:\n%.300s", s, r)
			}
		}
	}
}

func readManifest(t *testing.T, out string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Parse(readZip(t, out)[bundle.ManifestPath])
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func kinds(rs []manifest.Redaction) map[string]int {
	out := map[string]int{}
	for _, r := range rs {
		out[r.Kind] += r.Count
	}
	return out
}

// findings runs analyze -o json and returns the findings and skipped rules
// with the input's path taken out.
func findings(t *testing.T, path string) string {
	t.Helper()
	r := runDiag(t, nil, false, "analyze", "-o", "json", "--fail-on", "info", path)
	if r.code != 0 && r.code != 3 {
		t.Fatalf("analyze %s: exit %d: %s", path, r.code, r.stderr)
	}
	var rep struct {
		Findings []map[string]any `json:"findings"`
		Skipped  []map[string]any `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, list := range [][]map[string]any{rep.Findings, rep.Skipped} {
		for _, f := range list {
			delete(f, "input")
			if f["node"] == path {
				delete(f, "node")
			}
		}
	}
	b, _ := json.MarshalIndent(rep, "", " ")
	return strings.ReplaceAll(string(b), path, "INPUT")
}

func TestBundleRedactDirectoryBundle(t *testing.T) {
	in := copyTree(t, seedBroken)
	writeFile(t, filepath.Join(in, "logs", "kube-proxy", "kube-proxy.log"), []byte(plantedLog))
	writeFile(t, filepath.Join(in, "logs", "hns.etl"), []byte("\x00\x01ETL binary\x00"))
	pcap, err := os.ReadFile("../../testdata/bundles/seed-linux-controlplane/capture/vxlan-4789.pcap")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(in, "capture", "diag.pcap"), pcap)
	out := filepath.Join(t.TempDir(), "ticket.zip")

	r := runDiag(t, nil, false, "bundle", "redact", in, "--output-file", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != out+"\n" {
		t.Errorf("stdout %q, want the output path", r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	for _, want := range []string{"wrote " + out, "1 with secrets removed", "1 left out", "password", "token", "private-key", "cloud-credential"} {
		if !strings.Contains(last, want) {
			t.Errorf("summary %q lacks %q", last, want)
		}
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "logs/hns.etl") {
		t.Errorf("stderr should name the left-out ETL, then the summary:\n%s", r.stderr)
	}
	checkNoSecrets(t, out)

	entries := readZip(t, out)
	if !bytes.Equal(entries["capture/diag.pcap"], pcap) {
		t.Error("the capture is not kept whole")
	}
	if _, ok := entries["logs/hns.etl"]; ok {
		t.Error("binary logs/hns.etl was kept")
	}
	if log := string(entries["logs/kube-proxy/kube-proxy.log"]); !strings.Contains(log, "10.20.30.11 on Ethernet 2") || !strings.Contains(log, "REDACTED") {
		t.Errorf("redacted log lost its evidence or its placeholders:\n%s", log)
	}

	m := readManifest(t, out)
	if m.Node != "winw1" || m.Tool == nil || m.Tool.Name != "diag" || m.Options["redact.source"] != filepath.Base(in) {
		t.Errorf("manifest: node %q tool %+v options %v", m.Node, m.Tool, m.Options)
	}
	fe, ok := m.File("logs/kube-proxy/kube-proxy.log")
	if !ok {
		t.Fatal("manifest lacks the log")
	}
	got := kinds(fe.Redacted)
	for _, k := range []string{"password", "token", "private-key", "cloud-credential"} {
		if got[k] == 0 {
			t.Errorf("manifest: log redactions %v lack %s", got, k)
		}
	}
	if other, _ := m.File("hns/v1/networks.json"); len(other.Redacted) != 0 {
		t.Errorf("networks.json marked redacted: %v", other.Redacted)
	}
	if v := runDiag(t, nil, false, "bundle", "verify", out); v.code != 0 {
		t.Errorf("verify: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	if a, b := findings(t, in), findings(t, out); a != b {
		t.Errorf("findings differ:\ninput %s\noutput %s", a, b)
	}
}

func TestBundleRedactDefaultOutputAndOverwrite(t *testing.T) {
	in := copyTree(t, seedFixed)
	want := in + "-redacted.zip"
	r := runDiag(t, nil, false, "bundle", "redact", in)
	if r.code != 0 || r.stdout != want+"\n" {
		t.Fatalf("exit %d, stdout %q, want %q: %s", r.code, r.stdout, want, r.stderr)
	}
	if _, err := os.Stat(want + ".sha256"); err != nil {
		t.Error("no sidecar:", err)
	}
	// A zip input: foo.zip gives foo-redacted.zip.
	r = runDiag(t, nil, false, "bundle", "redact", want)
	if zipWant := strings.TrimSuffix(want, ".zip") + "-redacted.zip"; r.code != 0 || r.stdout != zipWant+"\n" {
		t.Errorf("zip input: exit %d, stdout %q, want %q: %s", r.code, r.stdout, zipWant, r.stderr)
	}

	before, _ := os.ReadFile(want)
	r = runDiag(t, nil, false, "bundle", "redact", in)
	if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "--force") || !strings.Contains(r.stderr, want) {
		t.Errorf("existing output: exit %d, stderr %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(want); !bytes.Equal(before, after) {
		t.Error("existing output was changed without --force")
	}

	os.WriteFile(want, []byte("old"), 0o600)
	r = runDiag(t, nil, false, "bundle", "redact", "--force", in)
	if r.code != 0 {
		t.Fatalf("--force: exit %d: %s", r.code, r.stderr)
	}
	if v := runDiag(t, nil, false, "bundle", "verify", want); v.code != 0 {
		t.Errorf("verify after --force: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}

	r = runDiag(t, nil, false, "bundle", "redact", want, "--output-file", want, "--force")
	if r.code != 2 || !strings.Contains(r.stderr, "is the input") {
		t.Errorf("output = input: exit %d, stderr %q", r.code, r.stderr)
	}
	assertNoTemp(t, filepath.Dir(in))
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestBundleRedactBadInput(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.zip")
	os.WriteFile(corrupt, []byte("PK\x03\x04 this is not really a zip"), 0o644)
	bomb := writeZip(t, filepath.Join(dir, "escape.zip"), func(zw *zip.Writer) {
		entry(zw, "../../etc/passwd", "x")
	})
	for _, in := range []string{filepath.Join(dir, "missing.zip"), corrupt, bomb} {
		r := runDiag(t, nil, false, "bundle", "redact", in, "--output-file", filepath.Join(dir, "out.zip"))
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, in) || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", in, r.code, r.stdout, r.stderr)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v", names)
	}
	r := runDiag(t, nil, false, "bundle", "redact", seedBroken, "--output-file", filepath.Join(dir, "no", "such", "out.zip"))
	if r.code != 2 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("missing output directory: exit %d, stderr %q", r.code, r.stderr)
	}
}

// The redaction of a collectlogs folder, including UTF-16 files, through the
// same rewrite the command uses.
func TestBundleRedactCollectlogsFolder(t *testing.T) {
	in := copyTree(t, "../../testdata/collectlogs/seed-broken")
	writeFile(t, filepath.Join(in, "kubeconfig.txt"), utf16LE("users:\r\n- name: node\r\n  user:\r\n    token: hunter2-Very-Secret\r\n"))
	writeFile(t, filepath.Join(in, "kubeproxy.log"), []byte(plantedLog))
	writeFile(t, filepath.Join(in, "cni.conf"), []byte(plantedCNI))

	// The rewrite itself, as the command runs it.
	direct := filepath.Join(t.TempDir(), "direct.zip")
	b, err := bundle.Open(in, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	w, err := bundle.Create(direct, manifest.Manifest{Node: "winw1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bundle.Rewrite(context.Background(), b, w, redact.Entry)
	b.Close()
	if err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkCollectlogsRedacted(t, direct)
	if len(res.Files) != 13 || len(res.Omitted) != 0 {
		t.Errorf("rewrote %d files, left out %v", len(res.Files), res.Omitted)
	}
	if ip := string(readZip(t, direct)["ip.txt"]); !strings.Contains(ip, "Windows IP Configuration") {
		t.Errorf("UTF-16 ip.txt not stored as UTF-8 text: %.80q", ip)
	}

	out := filepath.Join(t.TempDir(), "cl.zip")
	r := runDiag(t, nil, false, "bundle", "redact", in, "--output-file", out)
	if r.code == exitInternal && strings.Contains(r.stderr, "would read the redacted bundle as a diag bundle") {
		// This diag reads a collectlogs layout with a manifest.json as a
		// diag bundle (formats.Load); the command refuses such an output
		// rather than write one analyze would read as empty.
		if _, err := os.Stat(out); err == nil {
			t.Error("refused output left behind")
		}
		assertNoTemp(t, filepath.Dir(out))
		t.Skip("collectlogs output: blocked until formats.Load reads a collectlogs layout with a manifest as collectlogs")
	}
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkCollectlogsRedacted(t, out)
}

func checkCollectlogsRedacted(t *testing.T, out string) {
	t.Helper()
	checkNoSecrets(t, out)
	m := readManifest(t, out)
	for name, want := range map[string]string{"kubeconfig.txt": "token", "kubeproxy.log": "password", "cni.conf": "secret"} {
		fe, ok := m.File(name)
		if !ok || kinds(fe.Redacted)[want] == 0 {
			t.Errorf("%s: manifest redactions %v, want %s", name, fe.Redacted, want)
		}
	}
	if v := runDiag(t, nil, false, "bundle", "verify", out); v.code != 0 {
		t.Errorf("verify: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
}

func TestBundleRedactSameFindings(t *testing.T) {
	inputs := []string{seedBroken, seedFixed, "../../testdata/bundles/seed-linux-controlplane"}
	cl, _ := filepath.Glob("../../testdata/collectlogs/*")
	for _, src := range append(inputs, cl...) {
		t.Run(filepath.Base(filepath.Dir(src))+"/"+filepath.Base(src), func(t *testing.T) {
			in := copyTree(t, src)
			out := filepath.Join(t.TempDir(), "out.zip")
			r := runDiag(t, nil, false, "bundle", "redact", in, "--output-file", out)
			if r.code == exitInternal && strings.Contains(r.stderr, "would read the redacted bundle as") {
				t.Skipf("blocked until formats.Load reads a collectlogs layout with a manifest as collectlogs: %s", strings.TrimSpace(r.stderr))
			}
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if v := runDiag(t, nil, false, "bundle", "verify", out); v.code != 0 {
				t.Errorf("verify: exit %d\n%s%s", v.code, v.stdout, v.stderr)
			}
			a, b := findings(t, in), findings(t, out)
			if a != b {
				t.Errorf("findings differ:\ninput %s\noutput %s", a, b)
			}
			var rep struct{ Findings []any }
			json.Unmarshal([]byte(a), &rep)
			if strings.Contains(src, "seed-broken") && len(rep.Findings) == 0 {
				t.Error("no findings on a broken seed: the comparison proves nothing")
			}
		})
	}
}

// The captures' packet payloads: cleared by default, with the findings of
// the capture rules the same as on the input; kept whole with
// --keep-payloads, and the summary says which. The captures are
// tcpdump's VXLAN and Geneve test captures (TCP with payloads inside the
// tunnels, offloaded checksums among them) beside the project.
func TestBundleRedactCapturePayloads(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/captures/tcpdump-tests/*.pcap")
	if len(files) == 0 {
		t.Skip("tcpdump's test captures are not beside the project (../../../shared/captures/tcpdump-tests)")
	}
	dir := t.TempDir()
	for _, f := range files {
		pcap, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in := copyTree(t, "../../testdata/bundles/seed-linux-controlplane")
		writeFile(t, filepath.Join(in, "capture", "vxlan-4789.pcap"), pcap)
		name := filepath.Base(f)
		cleared := filepath.Join(dir, name+"-cleared.zip")
		r := runDiag(t, nil, false, "bundle", "redact", in, "--output-file", cleared)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		got := readZip(t, cleared)["capture/vxlan-4789.pcap"]
		if len(got) != len(pcap) {
			t.Errorf("%s: the capture's length changed", name)
		}
		if !bytes.Equal(got, pcap) && !strings.Contains(r.stderr, "bytes of packet payload in 1 capture") {
			t.Errorf("%s: payloads cleared, the summary does not say so: %s", name, r.stderr)
		}
		if a, b := findings(t, in), findings(t, cleared); a != b {
			t.Errorf("%s: findings differ once the payloads are cleared:\n%s\n---\n%s", name, a, b)
		}
		if name != "gso-ipv4-vxlan-ipv4.pcap" {
			continue
		}
		if bytes.Equal(got, pcap) {
			t.Errorf("%s: no payload cleared", name)
		}
		kept := filepath.Join(dir, name+"-kept.zip")
		r = runDiag(t, nil, false, "bundle", "redact", in, "--output-file", kept, "--keep-payloads")
		if r.code != 0 || !strings.Contains(r.stderr, "KEPT (--keep-payloads)") {
			t.Fatalf("exit %d, summary without the payloads kept: %s", r.code, r.stderr)
		}
		if !bytes.Equal(readZip(t, kept)["capture/vxlan-4789.pcap"], pcap) {
			t.Error("--keep-payloads: the capture is not kept whole")
		}
	}
}
