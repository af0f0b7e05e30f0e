package main

import (
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/wincni/diag/anonymize"
	"github.com/wincni/diag/bundle"
)

// anonymizeKey writes a fixed key so that the bundles of one cluster share it.
func anonymizeKey(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "test.key")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if err := os.WriteFile(p, []byte(hex.EncodeToString([]byte("diag anonymize test key, 32 byte"))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// verdicts is what anonymizing must keep of an analysis: per finding its
// rule, severity and number of evidence rows, and the rules skipped.
func verdicts(t *testing.T, inputs ...string) string {
	t.Helper()
	r := runDiag(t, nil, false, append([]string{"analyze", "-o", "json", "--fail-on", "never"}, inputs...)...)
	if r.code != 0 {
		t.Fatalf("analyze %v: exit %d: %s", inputs, r.code, r.stderr)
	}
	var rep struct {
		Findings []struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Evidence []any  `json:"evidence"`
		} `json:"findings"`
		Skipped []struct {
			ID string `json:"id"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.ID+" "+f.Severity+" "+itoa(len(f.Evidence)))
	}
	for _, s := range rep.Skipped {
		out = append(out, "skipped "+s.ID)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// anonymizeInputs: every bundle, collectlogs folder and paste in testdata,
// every analyzer scenario, and every cluster scenario's bundles.
func anonymizeInputs(t *testing.T) [][]string {
	var sets [][]string
	for _, g := range []string{"../../testdata/bundles/*", "../../testdata/collectlogs/*", "../../testdata/text/*", "../../analyzers/testdata/scenarios/*", "../../anonymize/testdata/short-names", "../../redact/testdata/*-planted"} {
		m, _ := filepath.Glob(g)
		for _, p := range m {
			sets = append(sets, []string{p})
		}
	}
	// Real pastes from public issue threads, beside the project in CI.
	pastes, _ := filepath.Glob("../../../shared/real-pastes/*/paste.txt")
	if len(pastes) == 0 {
		t.Log("no ../shared/real-pastes beside the project: real pastes not anonymized")
	}
	for _, p := range pastes {
		if _, err := loadBundle(p, nil); err == nil { // those analyze refuses, anonymize refuses too
			sets = append(sets, []string{p})
		}
	}
	clusters, _ := filepath.Glob("../../analyzers/testdata/clusters/*")
	for _, dir := range clusters {
		var members []string
		if data, err := os.ReadFile(filepath.Join(dir, "bundles")); err == nil {
			for _, l := range strings.Split(string(data), "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
					members = append(members, filepath.Join(dir, l))
				}
			}
		} else {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.IsDir() {
					members = append(members, filepath.Join(dir, e.Name()))
				}
			}
		}
		sets = append(sets, members)
	}
	if len(sets) < 90 {
		t.Fatalf("only %d inputs found", len(sets))
	}
	return sets
}

// TestAnonymizeKeepsTheAnalysis is the invariant of diag bundle anonymize:
// analyze finds the same rules, severities and evidence counts on the
// anonymized input, alone or with the other bundles of its cluster
// anonymized with the same key; and no address, MAC or node name that the
// original's parsers saw is left anywhere in the output, except those kept
// by design (loopback, multicast, netmasks, the Vagrant NAT network...).
func TestAnonymizeKeepsTheAnalysis(t *testing.T) {
	for _, set := range anonymizeInputs(t) {
		name := strings.TrimPrefix(set[0], "../../")
		if len(set) > 1 {
			name = filepath.Dir(name)
		}
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			key := anonymizeKey(t, dir)
			var outs []string
			for i, in := range set {
				out := filepath.Join(dir, itoa(i)+".zip")
				r := runDiag(t, nil, false, "bundle", "anonymize", in, "--key-file", key, "--output-file", out)
				if r.code != 0 {
					t.Fatalf("anonymize %s: exit %d: %s", in, r.code, r.stderr)
				}
				outs = append(outs, out)
				checkNothingLeft(t, in, out)
			}
			if got, want := verdicts(t, outs...), verdicts(t, set...); got != want {
				t.Errorf("analysis changed:\n--- anonymized\n%s\n--- original\n%s", got, want)
			}
		})
	}
}

// keptAddr: the addresses anonymize keeps by design (its --help says which).
func keptAddr(ip netip.Addr) bool {
	for _, p := range []string{"0.0.0.0/8", "127.0.0.0/8", "224.0.0.0/3", "128.0.0.0/32", "192.0.0.0/24", "10.0.2.0/24",
		"192.168.255.0/24", "168.63.129.0/24", "169.254.169.0/24"} {
		if netip.MustParsePrefix(p).Contains(ip) {
			return true
		}
	}
	return false
}

// fewPlaces: a prefix at most 4 bits longer than the private range it is
// in, whose mapping may be itself by chance.
func fewPlaces(p netip.Prefix) bool {
	for _, r := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10"} {
		if rp := netip.MustParsePrefix(r); rp.Contains(p.Addr()) && p.Bits()-rp.Bits() <= 4 {
			return true
		}
	}
	return false
}

var (
	ipv6Seen   = regexp.MustCompile(`\b[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{0,4}){3,7}\b`)
	statedName = regexp.MustCompile(`(?m)(?:Host Name|Primary Dns Suffix)[ .]*: *([A-Za-z0-9][A-Za-z0-9.-]+)\r?$`)
	ipv4Seen   = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(/\d{1,2})?\b`)
	macSeen    = regexp.MustCompile(`\b[0-9A-Fa-f]{2}([-:])[0-9A-Fa-f]{2}(?:[-:][0-9A-Fa-f]{2}){4}\b`)
)

// checkNothingLeft scans every byte of out (entries, names, manifest,
// sidecar) for the addresses, MACs and host names of in as the parsers
// read it.
func checkNothingLeft(t *testing.T, in, out string) {
	t.Helper()
	s, err := loadBundle(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	model, _ := json.Marshal(s)
	var k anonymize.Key
	copy(k[:], "diag anonymize test key, 32 byte")
	a := anonymize.New(k)
	var values []string
	// What is kept is decided here, not by asking the anonymizer: a
	// mapping that kept everything must fail this test.
	for _, v := range ipv4Seen.FindAllString(string(model), -1) {
		if p, err := netip.ParsePrefix(v); err == nil {
			// A short prefix of a private range can map to itself
			// (10.96.0.0/12 has 16 places to go in 10/8).
			if !keptAddr(p.Addr()) && !(a.Prefix(p) == p && fewPlaces(p)) {
				values = append(values, v)
			}
		} else if ip, err := netip.ParseAddr(v); err == nil && !keptAddr(ip) {
			values = append(values, v)
		}
	}
	for _, v := range ipv6Seen.FindAllString(string(model), -1) {
		if ip, err := netip.ParseAddr(v); err == nil && !ip.IsLoopback() && !ip.IsUnspecified() && !ip.IsMulticast() {
			values = append(values, strings.ToLower(ip.String()))
		}
	}
	for _, v := range macSeen.FindAllString(string(model), -1) {
		mac := strings.ToLower(strings.ReplaceAll(v, ":", "-"))
		if mac == "00-00-00-00-00-00" || mac == "ff-ff-ff-ff-ff-ff" || strings.ContainsAny(mac[1:2], "13579bdf") {
			continue // broadcast, zero, multicast: kept
		}
		// A locally administered MAC made from a kept address (flannel's
		// MAC of a VTEP in the Vagrant NAT network) is kept with it.
		var b [6]byte
		hex.Decode(b[:], []byte(strings.ReplaceAll(mac, "-", "")))
		if emb := netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}); b[0]&2 != 0 && keptAddr(emb) && b[2] != 0 && b[2] != 127 && b[2] < 224 {
			continue
		}
		values = append(values, mac)
	}
	names := []string{s.NodeName()}
	if s.OS != nil {
		names = append(names, s.OS.Hostname)
	}
	for _, n := range s.KubeNodes {
		names = append(names, n.Name)
	}
	// Names only ipconfig /all and its kind state.
	files := []string{in}
	filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, m := range statedName.FindAllStringSubmatch(string(data), -1) {
			names = append(names, m[1])
		}
	}
	for _, n := range names {
		if len(n) >= 3 && !map[string]bool{"localhost": true, "windows": true, "linux": true, "master": true, "node": true}[strings.ToLower(n)] {
			values = append(values, strings.ToLower(n))
		}
	}
	var blob strings.Builder
	for name, data := range readZip(t, out) {
		blob.WriteString(name + "\n" + string(data) + "\n")
	}
	sidecar, _ := os.ReadFile(out + ".sha256")
	blob.WriteString(string(sidecar))
	text := strings.ToLower(blob.String())
	// Addresses and MACs as tokens of the output; names by a search each
	// (few, and they may sit inside a longer word: winw1-100-244-206-64-26).
	found := map[string]bool{}
	for _, v := range ipv4Seen.FindAllString(text, -1) {
		found[v] = true
	}
	for _, v := range macSeen.FindAllString(text, -1) {
		found[strings.ReplaceAll(v, ":", "-")] = true
	}
	for _, v := range ipv6Seen.FindAllString(text, -1) {
		if ip, err := netip.ParseAddr(v); err == nil {
			found[ip.String()] = true
		}
	}
	for _, v := range values {
		left := found[v]
		if !strings.ContainsAny(v, ".-/:") || !ipv4Seen.MatchString(v) && !macSeen.MatchString(v) && !ipv6Seen.MatchString(v) {
			re := regexp.MustCompile(`(^|[^0-9a-z.\-_])` + regexp.QuoteMeta(v) + `($|[^0-9a-z_]|\.[^0-9])`)
			left = re.MatchString(text)
		}
		if left {
			t.Errorf("%s: %q left in the output", in, v)
		}
	}
}

// TestAnonymizedDiff: diag diff of two bundles anonymized with one key
// sees the same changes (kind, field, change) and the same new, resolved
// and persisting findings as on the originals; across formats (the
// collectlogs folder against the bundle of one state) still nothing.
func TestAnonymizedDiff(t *testing.T) {
	dir := t.TempDir()
	key := anonymizeKey(t, dir)
	anon := func(in, name string) string {
		out := filepath.Join(dir, name)
		if r := runDiag(t, nil, false, "bundle", "anonymize", in, "--key-file", key, "--output-file", out); r.code != 0 {
			t.Fatalf("anonymize %s: %s", in, r.stderr)
		}
		return out
	}
	shape := func(d diffDoc) string {
		var out []string
		for _, c := range d.Changes {
			out = append(out, c.Kind+" "+c.Field+" "+c.Change)
		}
		sort.Strings(out)
		return strings.Join(out, "\n") + "\nnew " + ruleIDs(d.Findings.New) + " resolved " + ruleIDs(d.Findings.Resolved) + " persisting " + ruleIDs(d.Findings.Persisting)
	}
	broken, fixed := anon(seedBroken, "broken.zip"), anon(seedFixed, "fixed.zip")
	want, got := diffJSON(t, 3, seedBroken, seedFixed), diffJSON(t, 3, broken, fixed)
	if shape(got) != shape(want) {
		t.Errorf("anonymized diff:\n%s\noriginal diff:\n%s", shape(got), shape(want))
	}
	if got.Old.Node == "winw1" || got.Old.Node == "" || got.Old.Node != got.New.Node {
		t.Errorf("nodes %q %q: one pseudonym expected", got.Old.Node, got.New.Node)
	}
	cl := anon("../../testdata/collectlogs/seed-broken", "collectlogs.zip")
	if d := diffJSON(t, 0, cl, broken); len(d.Changes) != 0 {
		t.Errorf("collectlogs against bundle, anonymized: %+v", d.Changes)
	}
}

// TestAnonymizeCommand: the key (new, 0600, named on stderr; refused when
// it exists; a bad one is one line, exit 2), the map (only asked for,
// 0600), the manifest (the key's ID, never the key), the default output
// name, and one key giving one output.
func TestAnonymizeCommand(t *testing.T) {
	dir := t.TempDir()
	in := copyTree(t, seedBroken)
	out := filepath.Join(dir, "a.zip")
	r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--write-map")
	if r.code != 0 || strings.TrimSpace(r.stdout) != out || !strings.Contains(r.stderr, "a.zip.key") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{out + ".key", out + ".map.json"} {
		checkOwnerOnly(t, f)
	}
	key, _ := os.ReadFile(out + ".key")
	m := readManifest(t, out)
	raw := readZip(t, out)[bundle.ManifestPath]
	if m.Options["anonymize.key-id"] == "" || strings.Contains(string(raw), strings.TrimSpace(string(key))) || m.Node == "winw1" {
		t.Errorf("manifest: %s", raw)
	}
	mp, _ := os.ReadFile(out + ".map.json")
	if !strings.Contains(string(mp), `"winw1": "`+m.Node+`"`) {
		t.Errorf("the map does not name the node's pseudonym %s: %.400s", m.Node, mp)
	}

	// The key exists: not replaced without --force, reused with --key-file.
	r = runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", filepath.Join(dir, "b.zip"))
	if r.code != 0 {
		t.Fatalf("b.zip: %s", r.stderr)
	}
	r = runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", filepath.Join(dir, "b.zip"), "--force")
	if r.code != 0 {
		t.Fatalf("b.zip --force: %s", r.stderr)
	}
	os.Remove(filepath.Join(dir, "b.zip"))
	if r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", filepath.Join(dir, "b.zip")); r.code != 2 || !strings.Contains(r.stderr, "b.zip.key exists") {
		t.Errorf("an existing key: exit %d %q", r.code, r.stderr)
	}
	c := filepath.Join(dir, "c.zip")
	if r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", c, "--key-file", out+".key"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	a1, c1 := readZip(t, out), readZip(t, c)
	for name, data := range a1 {
		if name != bundle.ManifestPath && string(c1[name]) != string(data) {
			t.Errorf("%s: one key, two outputs", name)
		}
	}

	bad := filepath.Join(dir, "bad.key")
	writeFile(t, bad, []byte("not a key\n"))
	r = runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", filepath.Join(dir, "d.zip"), "--key-file", bad)
	if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "bad.key") {
		t.Errorf("a bad key: exit %d %q", r.code, r.stderr)
	}

	// The default output, beside the input.
	r = runDiag(t, nil, false, "bundle", "anonymize", in)
	if want := in + "-anonymized.zip"; r.code != 0 || strings.TrimSpace(r.stdout) != want {
		t.Errorf("default output: exit %d %q, want %s", r.code, r.stdout, want)
	}
}

// TestAnonymizeShortNames: nodes named vm and master (two words of the formats) are
// replaced wherever a field states them (the manifest, os.json, the
// NodeList, Calico's blocks, kube-proxy's --hostname-override, ipconfig),
// named as kept in free text on stderr and in the manifest, and gone from
// the report; --keywords replaces a customer's name inside words too.
func TestAnonymizeShortNames(t *testing.T) {
	const in = "../../anonymize/testdata/short-names"
	dir := t.TempDir()
	out := filepath.Join(dir, "a.zip")
	r := runDiag(t, nil, false, "bundle", "anonymize", in, "--key-file", anonymizeKey(t, dir), "--output-file", out, "--keywords", "fabrikam")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`KEPT in free text.*vm \(host, 2 characters\).*master \(host`).MatchString(r.stderr) {
		t.Errorf("the summary does not name the kept names: %s", r.stderr)
	}
	m := readManifest(t, out)
	if m.Node == "vm" || !strings.HasPrefix(m.Node, "host-") || !strings.Contains(m.Options["anonymize.names-kept-in-text"], "vm (host") {
		t.Errorf("manifest: node %q, options %v", m.Node, m.Options)
	}
	word := regexp.MustCompile(`(?i)(^|[^a-z0-9])(vm|master)($|[^a-z0-9])`)
	for name, data := range readZip(t, out) {
		if strings.Contains(strings.ToLower(string(data)+name), "fabrikam") {
			t.Errorf("%s: the keyword is left: %s", name, data)
		}
		if name == "logs/notes.txt" || name == bundle.ManifestPath {
			continue // free text: the names are kept there, and said so
		}
		for _, l := range strings.Split(string(data), "\n") {
			if word.MatchString(l) {
				t.Errorf("%s: a stated name is left: %s", name, l)
			}
		}
	}
	if got, want := verdicts(t, out), verdicts(t, in); got != want {
		t.Errorf("analysis changed:\n--- anonymized\n%s\n--- original\n%s", got, want)
	}
	rep := runDiag(t, nil, false, "analyze", "-o", "markdown", "--fail-on", "never", out)
	if heading, _, _ := strings.Cut(rep.stdout, "\n"); word.MatchString(heading) {
		t.Errorf("report heading: %s", heading)
	}
}

// TestAnonymizeKeywordErrors: a keyword that would cut through the bundle,
// or a keyword file that cannot be read, is one line naming it, exit 2.
func TestAnonymizeKeywordErrors(t *testing.T) {
	dir := t.TempDir()
	kw := filepath.Join(dir, "words.txt")
	writeFile(t, kw, []byte("# customers\ncontoso\n\noverlay\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--keywords", "ab"}, `keyword "ab"`},
		{[]string{"--keywords", "Overlay"}, `keyword "Overlay"`},
		{[]string{"--keyword-file", kw}, "words.txt:4"},
		{[]string{"--keyword-file", filepath.Join(dir, "missing.txt")}, "missing.txt"},
	} {
		args := append([]string{"bundle", "anonymize", seedBroken, "--output-file", filepath.Join(dir, "x.zip"), "--key-file", anonymizeKey(t, dir)}, c.args...)
		r := runDiag(t, nil, false, args...)
		if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %q, want one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestAnonymizeRemovesPlantedSecrets: anonymize redacts as bundle redact
// does: no planted secret is left and no file is left out.
func TestAnonymizeRemovesPlantedSecrets(t *testing.T) {
	ins, _ := filepath.Glob("../../redact/testdata/*-planted")
	if len(ins) < 2 {
		t.Fatalf("planted fixtures: %v", ins)
	}
	for _, in := range ins {
		dir := t.TempDir()
		out := filepath.Join(dir, "a.zip")
		r := runDiag(t, nil, false, "bundle", "anonymize", in, "--key-file", anonymizeKey(t, dir), "--output-file", out)
		if r.code != 0 || strings.Contains(r.stderr, "left out") {
			t.Fatalf("%s: exit %d: %s", in, r.code, r.stderr)
		}
		for name, data := range readZip(t, out) {
			if loc := plantedLeft.FindIndex(data); loc != nil {
				t.Errorf("%s: %s: planted value left: %q", in, name, data[max(0, loc[0]-40):min(len(data), loc[1]+20)])
			}
		}
	}
}

// diag bundle key makes the key a team shares: readable by its owner only,
// never replacing one, and taken by anonymize --key-file.
func TestBundleKey(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "team.key")
	r := runDiag(t, nil, false, "bundle", "key", key)
	if r.code != 0 || !strings.Contains(r.stdout, "ID ") {
		t.Fatalf("exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	checkOwnerOnly(t, key)
	if r := runDiag(t, nil, false, "bundle", "key", key); r.code != 2 || !strings.Contains(r.stderr, "never replaced") {
		t.Errorf("again: exit %d %q", r.code, r.stderr)
	}
	out := filepath.Join(dir, "a.zip")
	if r := runDiag(t, nil, false, "bundle", "anonymize", "--key-file", key, "--output-file", out, seedBroken); r.code != 0 {
		t.Errorf("anonymize with it: exit %d %q", r.code, r.stderr)
	}
}
