package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// classFiles are the files of redact/testdata/secret-classes that
// redaction handles: one of each secret class beside its look-alikes.
var classFiles = []string{"agent.ini", "app-settings.json", "autounattend.xml", "certs.txt", "deploy.yaml", "env.txt", "fluent-bit.conf", "kubeconfig", "procs.txt", "services.log", "setdump.txt", "transcript.txt", "web.config", "winlogon.txt"}

// classSecrets are their secrets, as planted.
var classSecrets = []string{
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

// classInputs builds a collectlogs folder and a bundle zip that carry
// the planted files (each in another encoding) beside real-shaped data.
func classInputs(t *testing.T) map[string]string {
	t.Helper()
	cl := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	bdir := copyTree(t, seedBroken)
	for i, f := range classFiles {
		data, err := os.ReadFile(filepath.Join("../../redact/testdata/secret-classes", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(cl, f), encodeAs(string(data), i))
		writeFile(t, filepath.Join(bdir, "logs", f), encodeAs(string(data), i+3))
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

// plantInto copies base (a bundle or collectlogs folder) and writes the
// files of testdata/planted/<planted> into the copy, at their paths.
func plantInto(t *testing.T, base, planted string) string {
	t.Helper()
	in := copyTree(t, base)
	src := filepath.Join("testdata", "planted", planted)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		writeFile(t, filepath.Join(in, rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// eachCopy runs diag bundle redact and diag bundle anonymize over in, each
// into its own zip in dir, stops the test on an exit other than 0, and
// calls check with each copy.
func eachCopy(t *testing.T, in, dir string, check func(cmd, out string, r result)) {
	t.Helper()
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
		check(cmd, out, r)
	}
}

// TestPlantedSecretsEndToEnd: diag bundle redact and diag bundle
// anonymize over a collectlogs folder and a bundle zip carrying new
// planted secrets of every class in every encoding: no planted value is
// left, no file is left out, the analysis is the same, and gitleaks finds
// nothing in the redacted copy but the documented allow-list.
func TestPlantedSecretsEndToEnd(t *testing.T) {
	for kind, in := range classInputs(t) {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			want := verdicts(t, in)
			inFiles := countFiles(t, in)
			eachCopy(t, in, dir, func(cmd, out string, r result) {
				if strings.Contains(r.stderr, "left out") {
					t.Errorf("%s: a file left out: %s", cmd, r.stderr)
				}
				entries := readZip(t, out)
				if got := len(entries) - 1; got < inFiles-1 { // the manifest is new; an input manifest is replaced
					t.Errorf("%s: %d files out of %d", cmd, got, inFiles)
				}
				for name, data := range entries {
					for _, s := range classSecrets {
						if strings.Contains(string(data), s) {
							t.Errorf("%s: %s: planted %q left", cmd, name, s)
						}
					}
				}
				if got := verdicts(t, out); got != want {
					t.Errorf("%s: analysis changed:\n--- out\n%s\n--- in\n%s", cmd, got, want)
				}
			})
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

// TestPodSecretsInBundleZip: a bundle's k8s/pods.json is kubectl
// get pods -o json, one env item and one argument a line. Seen: after
// diag bundle redact and diag bundle anonymize, SQL_PASSWORD's and
// STRIPE_API_KEY's values and the value after "--admin-password" are
// left in the copy meant for a public ticket.
func TestPodSecretsInBundleZip(t *testing.T) {
	in := zipTree(t, plantInto(t, seedBroken, "bundle-pods"))
	eachCopy(t, in, t.TempDir(), func(cmd, out string, _ result) {
		data := string(readZip(t, out)["k8s/pods.json"])
		if !strings.Contains(data, `"FEATURE_FLAG"`) || !strings.Contains(data, `"value": "on"`) {
			t.Errorf("%s: k8s/pods.json lost what is no secret:\n%s", cmd, data)
		}
		for _, s := range []string{"Orchid5Basalt", "Maple9Cinder", "Lotus2Drift"} {
			if strings.Contains(data, s) {
				t.Errorf("%s: k8s/pods.json: %q left", cmd, s)
			}
		}
	})
}

// authPcap is one Ethernet/IPv4/TCP frame of a plain-HTTP request
// to the API server carrying a bearer token, as a pod's or a probe's
// traffic may in an overlay capture.
func authPcap() []byte {
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

// TestBundleCapturePayloadSecret: a capture in the bundle is kept whole
// by redact and has only its headers rewritten by anonymize, so a token
// sent in clear inside a packet goes into the copy meant for a public
// ticket, and the summary says "nothing redacted". Seen: "Authorization:
// Bearer Pcap7TokenValue99" in capture/auth.pcap of both copies.
func TestBundleCapturePayloadSecret(t *testing.T) {
	in := copyTree(t, seedBroken)
	writeFile(t, filepath.Join(in, "capture", "auth.pcap"), authPcap())
	eachCopy(t, in, t.TempDir(), func(cmd, out string, _ result) {
		for name, data := range readZip(t, out) {
			if strings.Contains(string(data), "Pcap7TokenValue99") {
				t.Errorf("%s: %s: the bearer token sent in clear is left", cmd, name)
			}
		}
	})
}
