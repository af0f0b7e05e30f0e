package main

import (
	"archive/zip"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
)

// review27Files are the planted files of redact/testdata/secret-classes
// that redaction handles: one of each secret class beside its look-alikes.
var review27Files = []string{"agent.ini", "app-settings.json", "autounattend.xml", "certs.txt", "deploy.yaml", "env.txt", "fluent-bit.conf", "kubeconfig", "procs.txt", "services.log", "setdump.txt", "transcript.txt", "web.config", "winlogon.txt"}

// review27Planted are their secrets, as planted.
var review27Planted = []string{
	"Vq4nTw8zLp",
	"Harbor9Lamp",
	"Plk0rnJx77",
	"Wsx3Edc4Rfv",
	"Qm8~Zr2.Tx5_Lp9-Kd3",
	"Fj3kL9mQ2w",
	"Yellow7Kite",
	"Gr33nTeaPot!",
	"Zb7Yx6Wv5Ut4",
	"Mq2Ns4Pt6Rv8",
	"Fo9~Gp8.Hq7_Ir6-Js5",
	"Bluebird42Sky",
	"Ochre5Maple",
	"violet canyon river",
	"dGhpc2lzbm90YXJlYWxrZXlidXRsb29rc2xpa2VvbmUxMjM0NTY3ODkwYWJjZGVm==",
	"Cobalt88Fern",
	"Xk2Lm9Np4Qr7St1Uv6Wx3Yz8Ab5Cd0Ef2Gh7Ij4Kl9Mn6Op1Qr3St8Uv5Wx0Yz2Ab7Cd4Ef9Gh==",
	"Saffron2Quill",
	"7c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f",
	"ghp_R2d2C3poBb8Yoda9Luke0Leia1Han2Chewie",
	"Marble Stair 71",
	"Pebble3Drum",
	"Lantern6Opal",
	"UABhAHMAcwB3ADAAcgBkADEAMgAzAEEAZABtAGkAbgBpAHMAdAByAGEAdABvAHIAUABhAHMAcwB3AG8AcgBkAA==",
	"Thistle8Harp",
	"Juniper4Wand",
	"Quartz5Violin",
	"Topaz7Crane",
	"Indigo3Shell",
	"Amber9Lynx",
	"glpat-Xy7Zq8Wr9Vs0Tu1Pn2Mo",
	"Rk3%2BmN8pQ2sT5vW7xY9zA1bC3dE5fG7hI9jK1lM3nO5%3D",
	"Pq1Rs2Tu3Vw4Xy5Za6Bc7De8Fg9Hi0Jk1Lm2No3Pq4Rs5Tu6Vw7Xy8Za9Bc0De1Fg2Hi3Jk4Lm5No6Pq7==",
	"AKIAZ7Q4XK2M9PLR3TSW",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzqK8Lm4Np2",
	"xoxb-918273645012-564738291034-QwErTyUiOpAsDfGhJkLzXcVb",
	"Zq9Xw8Ev7Rt6Yu5Io4Pa3Sd2",
	"eyJhbGciOiJSUzI1NiIsImtpZCI6Ik1ZeVBwIn0.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Iiwic3ViIjoic3lzdGVtOnNhOmRlZmF1bHQ6YnVpbGRlciJ9.Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVk",
	"github_pat_11ABCDEFG0123456789_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTu",
	"Fig3~Leaf.Rope_8",
	"Kz1Yx2Wv3Ut4Sr5Qp6On7Ml8Kj9Ih0Gf1Ed2Cb3Az4Yx5Wv6Ut7Sr8Qp9On0Ml1Kj2Ih3Gf4Ed5Cb6==",
	"Harvest7Moon",
	"Crimson5Owl",
	"Falcon8Reef",
	"Nimbus4Cedar",
	"LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcwQkFRRUZBQVNDQktjd2dnU2pBZ0VBQW9JQkFRQzcKLS0tLS1FTkQgUFJJVkFURSBLRVktLS0tLQo=",
	"Pine3Lattice",
	"Moss5Anvil",
	"Hy6Gt5Fr4De3Sw2Aq1Zx0Cv9Bn8Mm7Lk6Jh5Gf4Ds3Aa2Qw1Er0Ty9Ui8Op7As6Df5Gh4Jk3Ll2Zx1Cv==",
	"Tangerine9Slate",
	"Copper1Whale",
	"Velvet2Comet",
	"LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t",
	"k8sTokenQx7Wz3Vn5Bm9",
	"MHcCAQEEIFZhbmlsbGFQbGFudDl0cmVlRm94R2xvdmUyMDI2S2V5RGF0YaAKBggq",
	"npm_Qx8Wc7Ve6Rb5Tn4Ym3Ul2Ik1Oj0Ph9Ag8Sf",
	"Opal4~River.Stone_7",
}

// review27Encode writes text the way one of diag's inputs may hold it,
// by turn: UTF-8, CRLF, UTF-8 with BOM, UTF-16LE with and without BOM,
// UTF-16BE with BOM.
func review27Encode(text string, turn int) []byte {
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

// review27Inputs builds a collectlogs folder and a bundle zip that carry
// the planted files (each in another encoding) beside real-shaped data.
func review27Inputs(t *testing.T) map[string]string {
	t.Helper()
	cl := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	bdir := copyTree(t, seedBroken)
	for i, f := range review27Files {
		data, err := os.ReadFile(filepath.Join("../../redact/testdata/secret-classes", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(cl, f), review27Encode(string(data), i))
		writeFile(t, filepath.Join(bdir, "logs", f), review27Encode(string(data), i+3))
	}
	return map[string]string{"collectlogs folder": cl, "bundle zip": zipTree(t, bdir)}
}

// zipTree zips a directory as a bundle zip is laid out.
func zipTree(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(dir)+".zip")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// countFiles counts the files of a directory or the entries of a zip.
func countFiles(t *testing.T, in string) int {
	t.Helper()
	if strings.HasSuffix(in, ".zip") {
		return len(readZip(t, in))
	}
	n := 0
	filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestReview27PlantedEndToEnd: diag bundle redact and diag bundle
// anonymize over a collectlogs folder and a bundle zip carrying new
// planted secrets of every class in every encoding: no planted value is
// left, no file is left out, the analysis is the same, and gitleaks finds
// nothing in the redacted copy but the documented allow-list.
func TestReview27PlantedEndToEnd(t *testing.T) {
	for kind, in := range review27Inputs(t) {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			want := verdicts(t, in)
			inFiles := countFiles(t, in)
			for _, cmd := range []string{"redact", "anonymize"} {
				out := filepath.Join(dir, cmd+".zip")
				args := []string{"bundle", cmd, in, "--output-file", out}
				if cmd == "anonymize" {
					args = append(args, "--key-file", anonymizeKey(t, dir))
				}
				r := runDiag(t, nil, false, args...)
				if r.code != 0 {
					t.Fatalf("%s: exit %d: %s", cmd, r.code, r.stderr)
				}
				if strings.Contains(r.stderr, "left out") {
					t.Errorf("%s: a file left out: %s", cmd, r.stderr)
				}
				entries := readZip(t, out)
				if got := len(entries) - 1; got < inFiles-1 { // the manifest is new; an input manifest is replaced
					t.Errorf("%s: %d files out of %d", cmd, got, inFiles)
				}
				for name, data := range entries {
					for _, s := range review27Planted {
						if strings.Contains(string(data), s) {
							t.Errorf("%s: %s: planted %q left", cmd, name, s)
						}
					}
				}
				if got := verdicts(t, out); got != want {
					t.Errorf("%s: analysis changed:\n--- out\n%s\n--- in\n%s", cmd, got, want)
				}
			}
			if testing.Short() {
				return
			}
			bin := gitleaksBinary(t)
			tree, _, _ := redactedTree(t, in)
			for _, l := range runGitleaks(t, bin, tree) {
				if !allowed(l) {
					t.Errorf("gitleaks %s in %s:%d: %q", l.RuleID, filepath.Base(l.File), l.StartLine, l.Match)
				}
			}
		})
	}
}

// TestReview27PodSecretsInBundleZip: a bundle's k8s/pods.json is kubectl
// get pods -o json, one env item and one argument a line. Seen: after
// diag bundle redact and diag bundle anonymize, SQL_PASSWORD's and
// STRIPE_API_KEY's values and the value after "--admin-password" are
// left in the copy meant for a public ticket.
func TestReview27PodSecretsInBundleZip(t *testing.T) {
	bdir := copyTree(t, seedBroken)
	pods, err := os.ReadFile("testdata/review27/bundle-pods/k8s/pods.json")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bdir, "k8s", "pods.json"), pods)
	in := zipTree(t, bdir)
	dir := t.TempDir()
	for _, cmd := range []string{"redact", "anonymize"} {
		out := filepath.Join(dir, cmd+".zip")
		args := []string{"bundle", cmd, in, "--output-file", out}
		if cmd == "anonymize" {
			args = append(args, "--key-file", anonymizeKey(t, dir))
		}
		if r := runDiag(t, nil, false, args...); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, r.code, r.stderr)
		}
		data := string(readZip(t, out)["k8s/pods.json"])
		if !strings.Contains(data, `"FEATURE_FLAG"`) || !strings.Contains(data, `"value": "on"`) {
			t.Errorf("%s: k8s/pods.json lost what is no secret:\n%s", cmd, data)
		}
		for _, s := range []string{"Orchid5Basalt", "Maple9Cinder", "Lotus2Drift"} {
			if strings.Contains(data, s) {
				t.Errorf("%s: k8s/pods.json: %q left", cmd, s)
			}
		}
	}
}

// anonymizeFolder anonymizes a collectlogs folder made of flannel-2024 and
// the files of testdata/review27/<extra>, and returns the output's text
// (every entry, names included), its stderr and its manifest's kept names.
func anonymizeFolder(t *testing.T, extra string) (text, stderr, kept string) {
	t.Helper()
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	src := filepath.Join("testdata", "review27", extra)
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(in, e.Name()), data)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "a.zip")
	r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--key-file", anonymizeKey(t, dir))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var b strings.Builder
	for name, data := range readZip(t, out) {
		b.WriteString(name + "\n" + string(data) + "\n")
	}
	return b.String(), r.stderr, readManifest(t, out).Options["anonymize.names-kept-in-text"]
}

// TestReview27KubeletNodeName: the kubelet states the node's name
// (--hostname-override, KubeletConfiguration's nodeName, its log's
// node="..."); in a collectlogs folder it may differ from ipconfig's Host
// Name. It must be replaced, or named as kept in the summary and the
// manifest. Seen: akswin000007 left in all three files, and neither the
// summary nor the manifest names it.
func TestReview27KubeletNodeName(t *testing.T) {
	text, stderr, kept := anonymizeFolder(t, "kubelet-node")
	if strings.Contains(strings.ToLower(text), "akswin000007") && !(strings.Contains(stderr, "akswin000007") && strings.Contains(kept, "akswin000007")) {
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(strings.ToLower(l), "akswin000007") {
				t.Errorf("node name left, and not named as kept: %s", l)
			}
		}
	}
}

// TestReview27ComputerInfoCaption: Get-ComputerInfo states the host name
// in CsName, CsDNSHostName and CsCaption; a short one (n1) is replaced
// where a field states it. Seen: CsName and CsDNSHostName replaced, while
// "CsCaption : N1" is left beside them.
func TestReview27ComputerInfoCaption(t *testing.T) {
	text, stderr, kept := anonymizeFolder(t, "computerinfo")
	if !strings.Contains(stderr, "n1 (host") || !strings.Contains(kept, "n1 (host") {
		t.Errorf("n1 not named as kept: %s / %s", stderr, kept)
	}
	field := regexp.MustCompile(`(?im)^\s*(Cs[A-Za-z]*|LogonServer)\s*:\s*\\*n1\s*$`)
	for _, m := range field.FindAllString(text, -1) {
		t.Errorf("a field stating the host name keeps it: %q", strings.TrimSpace(m))
	}
}

// TestReview27GitleaksOverEveryFixture: gitleaks over the redacted copy of
// a collectlogs folder carrying every planted file of
// redact/testdata/secret-classes, the ones redaction handles and the ones it
// does not yet, finds nothing beyond the documented allow-list. Seen:
// slack-app-token on slack-bot.log (xapp-1-…), kubernetes-secret-yaml on
// k8s-secret.yaml (a Secret's data, which gitleaks also decodes from
// base64: Password=… inside).
func TestReview27GitleaksOverEveryFixture(t *testing.T) {
	bin := gitleaksBinary(t)
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	fx, _ := filepath.Glob("../../redact/testdata/secret-classes/*")
	if len(fx) < 20 {
		t.Fatalf("review27 fixtures: %d", len(fx))
	}
	for _, f := range fx {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(in, filepath.Base(f)), data)
	}
	tree, _, _ := redactedTree(t, in)
	for _, l := range runGitleaks(t, bin, tree) {
		if !allowed(l) {
			t.Errorf("gitleaks %s in %s:%d: %q", l.RuleID, filepath.Base(l.File), l.StartLine, l.Match)
		}
	}
}

// TestReview27ShortNodeNamesInBundle: a bundle of a node named node, host
// or n1 (a word of the formats, or two characters), with its FQDN in
// os.json: every field stating the name (the manifest, os.json's
// Hostname and FQDN, the NodeList, Calico's blocks and affinities,
// --hostname-override, EndpointSlices' nodeName) is replaced, the summary
// and the manifest name it as kept in free text, and the report heading
// does not carry it.
func TestReview27ShortNodeNamesInBundle(t *testing.T) {
	for _, name := range []string{"node", "host", "n1"} {
		t.Run(name, func(t *testing.T) {
			in := copyTree(t, seedBroken)
			filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, _ := os.ReadFile(p)
				s := strings.ReplaceAll(string(data), "winw1", name)
				if filepath.Base(p) == "os.json" {
					s = strings.Replace(s, `"Hostname": "`+name+`",`, `"Hostname": "`+name+`", "DNSHostName": "`+name+`.lab.contoso-test.net",`, 1)
				}
				return os.WriteFile(p, []byte(s), 0o644)
			})
			dir := t.TempDir()
			out := filepath.Join(dir, "a.zip")
			r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--key-file", anonymizeKey(t, dir))
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "KEPT in free text") || !strings.Contains(r.stderr, name+" (host") {
				t.Errorf("summary does not name %s as kept: %s", name, r.stderr)
			}
			m := readManifest(t, out)
			if m.Node == name || !strings.Contains(m.Options["anonymize.names-kept-in-text"], name+" (host") {
				t.Errorf("manifest: node %q, kept %q", m.Node, m.Options["anonymize.names-kept-in-text"])
			}
			stated := regexp.MustCompile(`(?i)("(node|nodeName|Hostname|name|address|DNSHostName)"\s*:\s*"|host:|--hostname-override=)` + regexp.QuoteMeta(name) + `([".]|$|\s)`)
			for ename, data := range readZip(t, out) {
				if ename == "manifest.json" {
					continue
				}
				for _, l := range stated.FindAllString(string(data), -1) {
					t.Errorf("%s: a field still states %s: %s", ename, name, l)
				}
				if strings.Contains(string(data), "contoso-test") {
					t.Errorf("%s: the domain is left", ename)
				}
			}
			rep := runDiag(t, nil, false, "analyze", "-o", "markdown", "--fail-on", "never", out)
			for _, l := range strings.Split(rep.stdout, "\n")[:min(8, strings.Count(rep.stdout, "\n"))] {
				if regexp.MustCompile(`(^|[^A-Za-z0-9-])` + name + `($|[^A-Za-z0-9(-])`).MatchString(strings.ReplaceAll(l, "node(s)", "")) {
					t.Errorf("report heading holds %s: %s", name, l)
				}
			}
			if got, want := verdicts(t, out), verdicts(t, in); got != want {
				t.Errorf("analysis changed:\n%s\n---\n%s", got, want)
			}
		})
	}
}

// TestReview27ComputerInfoDomain: Get-ComputerInfo states the node's
// domain in CsDomain, as Format-List text (UTF-16) and as JSON. Seen: the
// host names beside it replaced, lab.contoso-test.net and
// corp.fabrikam-test.org left in the clear and not named as kept.
func TestReview27ComputerInfoDomain(t *testing.T) {
	text, _, _ := anonymizeFolder(t, "computerinfo-domain")
	for _, d := range []string{"contoso-test", "fabrikam-test", "akswin000003"} {
		if strings.Contains(strings.ToLower(text), d) {
			t.Errorf("%s left", d)
		}
	}
}

// TestReview27NodeInternalDNS: a Node's InternalDNS address states its
// FQDN (the host name and the cluster's DNS domain). Seen: the host label
// replaced, the domain corp-int.contoso-lab.net left in k8s/nodes.json,
// not named as kept.
func TestReview27NodeInternalDNS(t *testing.T) {
	in := copyTree(t, seedBroken)
	data, err := os.ReadFile("testdata/review27/nodes-internaldns/k8s/nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(in, "k8s", "nodes.json"), data)
	dir := t.TempDir()
	out := filepath.Join(dir, "a.zip")
	r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--key-file", anonymizeKey(t, dir))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for name, data := range readZip(t, out) {
		if strings.Contains(string(data), "contoso-lab") && !strings.Contains(r.stderr, "contoso-lab") {
			t.Errorf("%s: the domain corp-int.contoso-lab.net left and not named as kept", name)
		}
	}
}

// TestReview27KeywordsEverywhere: --keywords and --keyword-file replace a
// customer's and a project's name in every file, in any case, inside
// longer words, in UTF-16 with and without a byte order mark, in JSON,
// URLs and paths, and in file names.
func TestReview27KeywordsEverywhere(t *testing.T) {
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	writeFile(t, filepath.Join(in, "northwindtraders-notes.txt"), []byte("NorthwindTraders\n"))
	writeFile(t, filepath.Join(in, "le.txt"), review27Encode("ticket for NORTHWINDTRADERS-prod and bluefinch_api\n", 4))
	writeFile(t, filepath.Join(in, "be.txt"), review27Encode("ticket for NorthWindTraders and BlueFinchWeb\n", 5))
	writeFile(t, filepath.Join(in, "bom.txt"), review27Encode("northwindtraders BLUEFINCH\n", 3))
	writeFile(t, filepath.Join(in, "j.json"), []byte(`{"customer":"Northwindtraders","url":"https://northwindtraders.example.com/x","path":"C:\\bluefinch\\x"}`+"\n"))
	dir := t.TempDir()
	kw := filepath.Join(dir, "words.txt")
	writeFile(t, kw, []byte("# projects\nbluefinch\n"))
	out := filepath.Join(dir, "a.zip")
	r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--key-file", anonymizeKey(t, dir), "--keywords", "northwindtraders", "--keyword-file", kw)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	ents := readZip(t, out)
	if len(ents) < 16 {
		t.Errorf("%d entries: a file left out", len(ents))
	}
	for name, data := range ents {
		low := strings.ToLower(name + "\n" + string(data))
		for _, k := range []string{"northwind", "bluefinch"} {
			if strings.Contains(low, k) {
				t.Errorf("%s: keyword %s left", name, k)
			}
		}
	}
}

// TestReview27CollectlogsUnderManyKeys: the case end to end: a
// collectlogs folder of 192.168.50.x / 51.x node addresses (ip.txt,
// network.txt, routes, endpoints, VFP), anonymized with the key
// and 40 random ones: every host address of the input is gone from the
// copy and listed in --write-map's map.
func TestReview27CollectlogsUnderManyKeys(t *testing.T) {
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
	keys := []string{"5f252f3ec65a609aadd822eae45e775e9173bfae3d975ea893e71f7a7a7ef407"}
	rnd := rand.New(rand.NewPCG(27, 2026))
	for range 40 {
		var k [32]byte
		for i := range k {
			k[i] = byte(rnd.Uint32())
		}
		keys = append(keys, hex.EncodeToString(k[:]))
	}
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

// TestReview27AnalysisUnderOtherKeys: anonymize keeps the analysis (rules,
// severities, evidence counts) whatever the key, not only under the one
// the other tests use: every single-input scenario under the key
// and three random ones, and its redacted copy too.
func TestReview27AnalysisUnderOtherKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: about 350 anonymize runs")
	}
	keys := []string{"5f252f3ec65a609aadd822eae45e775e9173bfae3d975ea893e71f7a7a7ef407"}
	rnd := rand.New(rand.NewPCG(27, 7))
	for range 3 {
		var k [32]byte
		for i := range k {
			k[i] = byte(rnd.Uint32())
		}
		keys = append(keys, hex.EncodeToString(k[:]))
	}
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

// TestReview27ServiceCIDRUnderKey: under this key the seed bundle's
// service range 10.96.0.0/12 (its endpoints' OutBoundNAT exceptions and
// routes) is left as it was in the copy, while --write-map says
// 10.96.0.0 became 10.99.30.0: an address unmapped, and a map that
// misleads whoever reads the findings back.
func TestReview27ServiceCIDRUnderKey(t *testing.T) {
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

// TestReview27TranscriptHeader: a PowerShell transcript's header states
// the machine ("Machine: AKSWIN000007 (Microsoft Windows NT …)") and the
// user as DOMAIN\user ("Username:", "RunAs User:"). Seen: the machine
// name, the Windows domain and the user left, none named as kept.
func TestReview27TranscriptHeader(t *testing.T) {
	text, stderr, _ := anonymizeFolder(t, "transcript-header")
	for _, n := range []string{"akswin000007", "fabrikamcorp", "jdoe-admin"} {
		if strings.Contains(strings.ToLower(text), n) && !strings.Contains(strings.ToLower(stderr), n) {
			t.Errorf("%s left, not named as kept", n)
		}
	}
}

// review27AuthPcap is one Ethernet/IPv4/TCP frame of a plain-HTTP request
// to the API server carrying a bearer token, as a pod's or a probe's
// traffic may in an overlay capture.
func review27AuthPcap() []byte {
	payload := []byte("GET /api/v1/nodes HTTP/1.1\r\nHost: 10.1.0.4:6443\r\nAuthorization: Bearer Pcap7TokenValue99\r\n\r\n")
	tcp := []byte{0xc8, 0x22, 0x19, 0x2b, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0}
	n := 20 + len(tcp) + len(payload)
	ip := []byte{0x45, 0, byte(n >> 8), byte(n), 0, 1, 0, 0, 64, 6, 0, 0, 10, 244, 1, 5, 10, 1, 0, 4}
	eth := []byte{0x00, 0x15, 0x5d, 0x0a, 0x7c, 0x21, 0x00, 0x15, 0x5d, 0x0a, 0x7c, 0x22, 0x08, 0x00}
	frame := append(append(append(eth, ip...), tcp...), payload...)
	le32 := func(v int) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
	out := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0}
	out = append(out, le32(1700000000)...)
	out = append(out, le32(0)...)
	out = append(out, le32(len(frame))...)
	out = append(out, le32(len(frame))...)
	return append(out, frame...)
}

// TestReview27CapturePayloadSecret: a capture in the bundle is kept whole
// by redact and has only its headers rewritten by anonymize, so a token
// sent in clear inside a packet goes into the copy meant for a public
// ticket, and the summary says "nothing redacted". Seen: "Authorization:
// Bearer Pcap7TokenValue99" in capture/auth.pcap of both copies.
func TestReview27CapturePayloadSecret(t *testing.T) {
	in := copyTree(t, seedBroken)
	writeFile(t, filepath.Join(in, "capture", "auth.pcap"), review27AuthPcap())
	dir := t.TempDir()
	for _, cmd := range []string{"redact", "anonymize"} {
		out := filepath.Join(dir, cmd+".zip")
		args := []string{"bundle", cmd, in, "--output-file", out}
		if cmd == "anonymize" {
			args = append(args, "--key-file", anonymizeKey(t, dir))
		}
		r := runDiag(t, nil, false, args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, r.code, r.stderr)
		}
		for name, data := range readZip(t, out) {
			if strings.Contains(string(data), "Pcap7TokenValue99") {
				t.Errorf("%s: %s: the bearer token sent in clear is left", cmd, name)
			}
		}
	}
}
