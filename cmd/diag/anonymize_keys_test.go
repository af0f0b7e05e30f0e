package main

import (
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// leakyKey is a key under which 192.168.50.21 was once left as it was;
// randomKeys puts it first.
const leakyKey = "5f252f3ec65a609aadd822eae45e775e9173bfae3d975ea893e71f7a7a7ef407"

// randomKeys returns leakyKey and n keys drawn from seq, in hex as a key
// file holds them.
func randomKeys(seq uint64, n int) []string {
	keys := []string{leakyKey}
	rnd := rand.New(rand.NewPCG(27, seq))
	for range n {
		var k [32]byte
		for i := range k {
			k[i] = byte(rnd.Uint32())
		}
		keys = append(keys, hex.EncodeToString(k[:]))
	}
	return keys
}

// TestAnonymizeCollectlogsUnderManyKeys: a collectlogs folder of
// 192.168.50.x / 51.x node addresses (ip.txt, network.txt, routes,
// endpoints, VFP), anonymized with leakyKey and 40 random keys: every host address of the input is gone from the
// copy and listed in --write-map's map.
func TestAnonymizeCollectlogsUnderManyKeys(t *testing.T) {
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		s := strings.ReplaceAll(string(data), "192.168.10.", "192.168.50.")
		s = strings.ReplaceAll(s, "192.168.11.", "192.168.51.")
		return os.WriteFile(p, []byte(s), 0o644)
	})
	hostAddr := regexp.MustCompile(`(?:^|[^0-9.])((?:10|100|169|172|192)\.\d{1,3}\.\d{1,3}\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))(?:$|[^0-9]|\.[^0-9])`)
	addrs := map[string]bool{}
	filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			for _, m := range hostAddr.FindAllStringSubmatch(string(data), -1) {
				if a, err := netip.ParseAddr(m[1]); err == nil && !keptAddr(a) {
					addrs[m[1]] = true
				}
			}
		}
		return nil
	})
	if !addrs["192.168.50.21"] || len(addrs) < 8 {
		t.Fatalf("input addresses: %v", addrs)
	}
	keys := randomKeys(2026, 40)
	dir := t.TempDir()
	for _, k := range keys {
		kf := filepath.Join(dir, "k.key")
		writeFile(t, kf, []byte(k+"\n"))
		out := filepath.Join(dir, "a.zip")
		os.Remove(out + ".map.json")
		r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--key-file", kf, "--write-map", "--force")
		if r.code != 0 {
			t.Fatalf("key %s: exit %d: %s", k, r.code, r.stderr)
		}
		var all strings.Builder
		for _, data := range readZip(t, out) {
			all.Write(data)
			all.WriteByte('\n')
		}
		var m struct {
			Addresses map[string]string `json:"addresses"`
		}
		data, err := os.ReadFile(out + ".map.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for a := range addrs {
			if regexp.MustCompile(`(?:^|[^0-9.])` + regexp.QuoteMeta(a) + `(?:$|[^0-9]|\.[^0-9])`).MatchString(all.String()) {
				t.Errorf("key %s: %s left", k, a)
			}
			if _, ok := m.Addresses[a]; !ok {
				t.Errorf("key %s: %s not in the map", k, a)
			}
		}
	}
}

// TestAnonymizeAnalysisUnderOtherKeys: anonymize keeps the analysis (rules,
// severities, evidence counts) whatever the key, not only under the one
// the other tests use: every single-input scenario under leakyKey and
// three random keys, and its redacted copy too.
func TestAnonymizeAnalysisUnderOtherKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: about 350 anonymize runs")
	}
	keys := randomKeys(7, 3)
	dir := t.TempDir()
	for _, set := range anonymizeInputs(t) {
		if len(set) != 1 {
			continue
		}
		in := set[0]
		want := verdicts(t, in)
		red := filepath.Join(dir, "r.zip")
		if r := runDiag(t, nil, false, "bundle", "redact", in, "--output-file", red, "--force"); r.code != 0 {
			t.Fatalf("redact %s: exit %d: %s", in, r.code, r.stderr)
		}
		if got := verdicts(t, red); got != want {
			t.Errorf("%s: redacted: analysis changed:\n%s\n--- original\n%s", in, got, want)
		}
		for _, k := range keys {
			kf := filepath.Join(dir, "k.key")
			writeFile(t, kf, []byte(k+"\n"))
			out := filepath.Join(dir, "a.zip")
			if r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--key-file", kf, "--force"); r.code != 0 {
				t.Fatalf("anonymize %s: exit %d: %s", in, r.code, r.stderr)
			}
			if got := verdicts(t, out); got != want {
				t.Errorf("%s, key %s: analysis changed:\n%s\n--- original\n%s", in, k[:12], got, want)
			}
		}
	}
}

// TestAnonymizeServiceCIDRUnderKey: under this key the seed bundle's
// service range 10.96.0.0/12 (its endpoints' OutBoundNAT exceptions and
// routes) is left as it was in the copy, while --write-map says
// 10.96.0.0 became 10.99.30.0: an address unmapped, and a map that
// misleads whoever reads the findings back.
func TestAnonymizeServiceCIDRUnderKey(t *testing.T) {
	dir := t.TempDir()
	kf := filepath.Join(dir, "k.key")
	writeFile(t, kf, []byte("ba19e478f0d90c8b5c818aa488b72b298bd6cb847de8b1829a90ae65f971d9ee\n"))
	out := filepath.Join(dir, "a.zip")
	if r := runDiag(t, nil, false, "bundle", "anonymize", seedBroken, "--output-file", out, "--key-file", kf, "--write-map"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if data := string(readZip(t, out)["hns/v1/endpoints.json"]); strings.Contains(data, "10.96.0.0/12") {
		t.Errorf("hns/v1/endpoints.json keeps 10.96.0.0/12")
	}
}
