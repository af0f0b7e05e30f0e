package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wincni/diag/redact"
)

// anonymized runs diag bundle anonymize over in, with a new key and
// args, into a zip of its own; an exit other than 0 stops the test.
func anonymized(t *testing.T, in string, args ...string) (out string, r result) {
	t.Helper()
	dir := t.TempDir()
	out = filepath.Join(dir, "a.zip")
	r = runDiag(t, nil, false, append([]string{"bundle", "anonymize", in, "--output-file", out, "--key-file", anonymizeKey(t, dir)}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	return out, r
}

// anonymizeCopy anonymizes in (a folder or a zip) and returns the
// output's text (every entry, names included), its stderr and its
// manifest's kept names.
func anonymizeCopy(t *testing.T, in string) (text, stderr, kept string) {
	t.Helper()
	out, r := anonymized(t, in)
	var b strings.Builder
	for name, data := range readZip(t, out) {
		b.WriteString(name + "\n" + string(data) + "\n")
	}
	return b.String(), r.stderr, readManifest(t, out).Options["anonymize.names-kept-in-text"]
}

// anonymizeFolder anonymizes a collectlogs folder made of flannel-2024 and
// the files of testdata/planted/<extra> (anonymizeCopy).
func anonymizeFolder(t *testing.T, extra string) (text, stderr, kept string) {
	t.Helper()
	return anonymizeCopy(t, plantInto(t, "../../testdata/collectlogs/flannel-2024", extra))
}

// anonymizeDir anonymizes testdata/planted/<extra> itself, a folder of
// pastes (ipconfig /all and a log), and returns the output's text and
// its stderr.
func anonymizeDir(t *testing.T, extra string) (text, stderr string) {
	t.Helper()
	text, stderr, _ = anonymizeCopy(t, filepath.Join("testdata", "planted", extra))
	return text, stderr
}

// leftUnnamed reports each name left in text that stderr does not name
// as kept.
func leftUnnamed(t *testing.T, text, stderr string, names ...string) {
	t.Helper()
	for _, n := range names {
		if strings.Contains(strings.ToLower(text), strings.ToLower(n)) && !strings.Contains(strings.ToLower(stderr), strings.ToLower(n)) {
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(strings.ToLower(l), strings.ToLower(n)) {
					t.Errorf("%s left, not named as kept: %s", n, strings.TrimSpace(l))
				}
			}
		}
	}
}

// TestAnonymizeStatedNamesInEveryEncoding: files that state the node, its
// domain and a user in the shapes diag reads (a transcript's header,
// Get-ComputerInfo, the kubelet's flags, configuration and log, a
// Node's addresses as kubectl describe prints them), each written in
// UTF-8, UTF-8 with BOM and CRLF, UTF-16LE with and without BOM and
// UTF-16BE: no name is left in the copy, in any encoding, unless the
// summary names it as kept.
func TestAnonymizeStatedNamesInEveryEncoding(t *testing.T) {
	text := strings.Join([]string{
		"**********************",
		"Windows PowerShell transcript start",
		"Username: NORTHWINDCORP\\asmith-ops",
		"RunAs User: NORTHWINDCORP\\asmith-ops",
		"Machine: WINPOOL000042 (Microsoft Windows NT 10.0.20348.0)",
		"**********************",
		"CsCaption     : WINPOOL000042",
		"CsDomain      : ops.northwind-test.org",
		"C:\\k\\kubelet.exe --hostname-override=winpool000042 --node-ip=10.1.0.7",
		`I1126 10:01:02.123456    4120 kubelet_node_status.go:72] "Attempting to register node" node="winpool000042"`,
		`  "nodeName": "winpool000042",`,
		"  InternalDNS:  winpool000042.pool.northwind-test.org",
		"",
	}, "\n")
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	for turn := range 6 {
		writeFile(t, filepath.Join(in, "stated-"+string(rune('a'+turn))+".txt"), encodeAs(text, turn))
	}
	out, r := anonymized(t, in)
	n := 0
	for name, data := range readZip(t, out) {
		if !strings.HasPrefix(name, "stated-") {
			continue
		}
		n++
		got := strings.ToLower(string(redact.Decode(data)))
		for _, s := range []string{"northwind", "asmith", "winpool"} {
			if strings.Contains(got, s) && !strings.Contains(strings.ToLower(r.stderr), s) {
				t.Errorf("%s: %s left, not named as kept:\n%s", name, s, got)
			}
		}
	}
	if n != 6 {
		t.Errorf("%d of the 6 files in the copy", n)
	}
}

// TestAnonymizeKubeletNodeName: the kubelet states the node's name
// (--hostname-override, KubeletConfiguration's nodeName, its log's
// node="..."); in a collectlogs folder it may differ from ipconfig's Host
// Name. It must be replaced, or named as kept in the summary and the
// manifest. Seen: akswin000007 left in all three files, and neither the
// summary nor the manifest names it.
func TestAnonymizeKubeletNodeName(t *testing.T) {
	text, stderr, kept := anonymizeFolder(t, "kubelet-node")
	if strings.Contains(strings.ToLower(text), "akswin000007") && !(strings.Contains(stderr, "akswin000007") && strings.Contains(kept, "akswin000007")) {
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(strings.ToLower(l), "akswin000007") {
				t.Errorf("node name left, and not named as kept: %s", l)
			}
		}
	}
}

// TestAnonymizeComputerInfoCaption: Get-ComputerInfo states the host name
// in CsName, CsDNSHostName and CsCaption; a short one (n1) is replaced
// where a field states it. Seen: CsName and CsDNSHostName replaced, while
// "CsCaption : N1" is left beside them.
func TestAnonymizeComputerInfoCaption(t *testing.T) {
	text, stderr, kept := anonymizeFolder(t, "computerinfo")
	if !strings.Contains(stderr, "n1 (host") || !strings.Contains(kept, "n1 (host") {
		t.Errorf("n1 not named as kept: %s / %s", stderr, kept)
	}
	field := regexp.MustCompile(`(?im)^\s*(Cs[A-Za-z]*|LogonServer)\s*:\s*\\*n1\s*$`)
	for _, m := range field.FindAllString(text, -1) {
		t.Errorf("a field stating the host name keeps it: %q", strings.TrimSpace(m))
	}
}

// TestAnonymizeComputerInfoDomain: Get-ComputerInfo states the node's
// domain in CsDomain, as Format-List text (UTF-16) and as JSON. Seen: the
// host names beside it replaced, lab.contoso-test.net and
// corp.fabrikam-test.org left in the clear and not named as kept.
func TestAnonymizeComputerInfoDomain(t *testing.T) {
	text, _, _ := anonymizeFolder(t, "computerinfo-domain")
	for _, d := range []string{"contoso-test", "fabrikam-test", "akswin000003"} {
		if strings.Contains(strings.ToLower(text), d) {
			t.Errorf("%s left", d)
		}
	}
}

// TestAnonymizeTranscriptHeader: a PowerShell transcript's header states
// the machine ("Machine: AKSWIN000007 (Microsoft Windows NT …)") and the
// user as DOMAIN\user ("Username:", "RunAs User:"). Seen: the machine
// name, the Windows domain and the user left, none named as kept.
func TestAnonymizeTranscriptHeader(t *testing.T) {
	text, stderr, _ := anonymizeFolder(t, "transcript-header")
	for _, n := range []string{"akswin000007", "fabrikamcorp", "jdoe-admin"} {
		if strings.Contains(strings.ToLower(text), n) && !strings.Contains(strings.ToLower(stderr), n) {
			t.Errorf("%s left, not named as kept", n)
		}
	}
}

// TestAnonymizeShortNodeNamesInBundle: a bundle of a node named node, host
// or n1 (a word of the formats, or two characters), with its FQDN in
// os.json: every field stating the name (the manifest, os.json's
// Hostname and FQDN, the NodeList, Calico's blocks and affinities,
// --hostname-override, EndpointSlices' nodeName) is replaced, the summary
// and the manifest name it as kept in free text, and the report heading
// does not carry it.
func TestAnonymizeShortNodeNamesInBundle(t *testing.T) {
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
			out, r := anonymized(t, in)
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

// TestAnonymizeNodeInternalDNS: a Node's InternalDNS address states its
// FQDN (the host name and the cluster's DNS domain). Seen: the host label
// replaced, the domain corp-int.contoso-lab.net left in k8s/nodes.json,
// not named as kept.
func TestAnonymizeNodeInternalDNS(t *testing.T) {
	in := plantInto(t, seedBroken, "nodes-internaldns")
	out, r := anonymized(t, in)
	for name, data := range readZip(t, out) {
		if strings.Contains(string(data), "contoso-lab") && !strings.Contains(r.stderr, "contoso-lab") {
			t.Errorf("%s: the domain corp-int.contoso-lab.net left and not named as kept", name)
		}
	}
}

// TestAnonymizeKeywordsEverywhere: --keywords and --keyword-file replace a
// customer's and a project's name in every file, in any case, inside
// longer words, in UTF-16 with and without a byte order mark, in JSON,
// URLs and paths, and in file names.
func TestAnonymizeKeywordsEverywhere(t *testing.T) {
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	writeFile(t, filepath.Join(in, "northwindtraders-notes.txt"), []byte("NorthwindTraders\n"))
	writeFile(t, filepath.Join(in, "le.txt"), encodeAs("ticket for NORTHWINDTRADERS-prod and bluefinch_api\n", 4))
	writeFile(t, filepath.Join(in, "be.txt"), encodeAs("ticket for NorthWindTraders and BlueFinchWeb\n", 5))
	writeFile(t, filepath.Join(in, "bom.txt"), encodeAs("northwindtraders BLUEFINCH\n", 3))
	writeFile(t, filepath.Join(in, "j.json"), []byte(`{"customer":"Northwindtraders","url":"https://northwindtraders.example.com/x","path":"C:\\bluefinch\\x"}`+"\n"))
	kw := filepath.Join(t.TempDir(), "words.txt")
	writeFile(t, kw, []byte("# projects\nbluefinch\n"))
	out, _ := anonymized(t, in, "--keywords", "northwindtraders", "--keyword-file", kw)
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

// TestAnonymizeCalicoConfigNodeName: Calico for Windows' config.ps1 states
// the node's name as $env:NODENAME, $env:CALICO_NODENAME and
// $env:K8S_NODE_NAME (PowerShell assignments). Seen: all three left, none
// named as kept.
func TestAnonymizeCalicoConfigNodeName(t *testing.T) {
	text, stderr, _ := anonymizeFolder(t, "calico-config")
	leftUnnamed(t, text, stderr, "aksnpwin8r", "winworker-tahoe3", "winworker-shasta4")
}

// TestAnonymizeKubectlNodesTable: "kubectl get nodes -o wide" in a
// transcript names every Node of the cluster in its NAME column (its
// INTERNAL-IP beside it). Seen: tslinux-ctl01 and tswin-pool07 left, not
// named as kept, while their addresses were mapped.
func TestAnonymizeKubectlNodesTable(t *testing.T) {
	text, stderr, _ := anonymizeFolder(t, "kubectl-nodes")
	leftUnnamed(t, text, stderr, "tslinux-ctl01", "tswin-pool07")
}

// TestAnonymizeSysteminfoOwner: systeminfo's "Registered Owner" and
// "Registered Organization" name a person and the customer; the host
// name, domain and logon server beside them go. Seen: "Mark Baker" and
// "Tailspin Toys" left.
func TestAnonymizeSysteminfoOwner(t *testing.T) {
	text, stderr, _ := anonymizeFolder(t, "systeminfo-owner")
	leftUnnamed(t, text, stderr, "TSWIN-APP02", "TSDC01", "Mark Baker", "Tailspin Toys")
}

// TestAnonymizeURLEncodedAddress: an address inside a percent-encoded URL
// (a redirect_uri, an upstream= in a log) stands between %2F and %3A,
// separators written as escapes, not letters. Seen: 172.22.41.93 and
// 192.168.77.14 left as they were, the rest of the folder mapped.
func TestAnonymizeURLEncodedAddress(t *testing.T) {
	text, _, _ := anonymizeFolder(t, "urlencoded")
	for _, a := range []string{"172.22.41.93", "192.168.77.14"} {
		if strings.Contains(text, a) {
			t.Errorf("%s left in a percent-encoded URL", a)
		}
	}
}

// TestAnonymizeAzureDNSSuffixKeepsMicrosoft: every Azure VM's DNS suffix
// is reddog.microsoft.com, the platform's, not the customer's. Anonymize
// may replace it, but not microsoft.com wherever it stands: seen
// mcr.microsoft.com (the image registry every Windows node pulls from) and
// the event schema's namespace http://schemas.microsoft.com/… rewritten to
// domain-….example.
func TestAnonymizeAzureDNSSuffixKeepsMicrosoft(t *testing.T) {
	text, _ := anonymizeDir(t, "azure-dns-suffix")
	for _, k := range []string{"mcr.microsoft.com/oss/kubernetes/pause:3.9", "xmlns='http://schemas.microsoft.com/win/2004/08/events/event'"} {
		if !strings.Contains(text, k) {
			t.Errorf("%s lost", k)
		}
	}
	leftUnnamed(t, text, "", "akswinp3x7")
}

// TestAnonymizeEventCSVMachineName: Get-WinEvent exported with
// Export-Csv states the host in its MachineName column (a field the
// anonymizer knows in Format-List and JSON). Seen: the domain part
// replaced, the host label lgwin-node12 left and not named as kept.
func TestAnonymizeEventCSVMachineName(t *testing.T) {
	text, stderr, _ := anonymizeFolder(t, "events-csv")
	leftUnnamed(t, text, stderr, "lgwin-node12", "litware")
}

// TestAnonymizeUserNamesInPastes: user names as Windows prints them in a
// transcript: whoami's domain\user (lower case), icacls' DOMAIN\user:(F),
// net user's "User name" and "Full name", query user's USERNAME column.
// Seen: the domain side of DOMAIN\user replaced and the user side left
// (tkimura, ngarcia), and the others left; none named as kept.
func TestAnonymizeUserNamesInPastes(t *testing.T) {
	text, stderr := anonymizeDir(t, "users")
	leftUnnamed(t, text, stderr, "tkimura", "ngarcia", "opsadmin", "Priya Raman", "lhernandez")
}

// TestAnonymizeKubectlPodsTable: "kubectl get pods -A -o wide" names the
// Node each pod runs on (NODE column) and the customer's namespaces
// (NAMESPACE column), which anonymize promises to replace outside the
// cluster's own. Seen: tswin-pool09 and acme-prod left, not named as
// kept, while the pods' addresses were mapped.
func TestAnonymizeKubectlPodsTable(t *testing.T) {
	text, stderr, _ := anonymizeFolder(t, "kubectl-pods")
	leftUnnamed(t, text, stderr, "tswin-pool09", "acme-prod")
}
