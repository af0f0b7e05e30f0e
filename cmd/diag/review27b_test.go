package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// anonymizeFolder27b anonymizes a collectlogs folder made of flannel-2024
// and the files of testdata/review27b/<extra>, and returns the output's
// text (every entry, names included) and its stderr.
func anonymizeFolder27b(t *testing.T, extra string) (text, stderr string) {
	t.Helper()
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	src := filepath.Join("testdata", "review27b", extra)
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
	return b.String(), r.stderr
}

// anonymizeDir27b anonymizes testdata/review27b/<extra> itself, a folder
// of pastes (ipconfig /all and a log), and returns the output's text.
func anonymizeDir27b(t *testing.T, extra string) (text, stderr string) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "a.zip")
	r := runDiag(t, nil, false, "bundle", "anonymize", filepath.Join("testdata", "review27b", extra), "--output-file", out, "--key-file", anonymizeKey(t, dir))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var b strings.Builder
	for name, data := range readZip(t, out) {
		b.WriteString(name + "\n" + string(data) + "\n")
	}
	return b.String(), r.stderr
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

// TestReview27bCalicoConfigNodeName: Calico for Windows' config.ps1 states
// the node's name as $env:NODENAME, $env:CALICO_NODENAME and
// $env:K8S_NODE_NAME (PowerShell assignments). Seen: all three left, none
// named as kept.
func TestReview27bCalicoConfigNodeName(t *testing.T) {
	text, stderr := anonymizeFolder27b(t, "calico-config")
	leftUnnamed(t, text, stderr, "aksnpwin8r", "winworker-tahoe3", "winworker-shasta4")
}

// TestReview27bKubectlNodesTable: "kubectl get nodes -o wide" in a
// transcript names every Node of the cluster in its NAME column (its
// INTERNAL-IP beside it). Seen: tslinux-ctl01 and tswin-pool07 left, not
// named as kept, while their addresses were mapped.
func TestReview27bKubectlNodesTable(t *testing.T) {
	text, stderr := anonymizeFolder27b(t, "kubectl-nodes")
	leftUnnamed(t, text, stderr, "tslinux-ctl01", "tswin-pool07")
}

// TestReview27bSysteminfoOwner: systeminfo's "Registered Owner" and
// "Registered Organization" name a person and the customer; the host
// name, domain and logon server beside them go. Seen: "Mark Baker" and
// "Tailspin Toys" left.
func TestReview27bSysteminfoOwner(t *testing.T) {
	text, stderr := anonymizeFolder27b(t, "systeminfo-owner")
	leftUnnamed(t, text, stderr, "TSWIN-APP02", "TSDC01", "Mark Baker", "Tailspin Toys")
}

// gitleaksOver27b redacts a collectlogs folder (flannel-2024) carrying the
// named fixtures of redact/testdata/node-configs and returns what
// gitleaks finds in the copy beyond the documented allow-list.
func gitleaksOver27b(t *testing.T, keep func(name string) bool) []leak {
	t.Helper()
	bin := gitleaksBinary(t)
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	fx, _ := filepath.Glob("../../redact/testdata/node-configs/*")
	n := 0
	for _, f := range fx {
		if !keep(filepath.Base(f)) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(in, filepath.Base(f)), data)
		n++
	}
	if n == 0 {
		t.Fatal("no review27b fixture")
	}
	tree, _, _ := redactedTree(t, in)
	var out []leak
	for _, l := range runGitleaks(t, bin, tree) {
		if !allowed(l) {
			out = append(out, l)
		}
	}
	return out
}

// TestReview27bGitleaksOverNodeConfigs: gitleaks over the redacted copy of
// every review27b fixture but the kubeconfig (below) finds nothing beyond
// the allow-list. Seen: generic-api-key on web.config, the machineKey's
// validationKey left in the clear.
func TestReview27bGitleaksOverNodeConfigs(t *testing.T) {
	for _, l := range gitleaksOver27b(t, func(n string) bool { return n != "kubeconfig-variants.yaml" }) {
		t.Errorf("gitleaks %s in %s:%d: %q", l.RuleID, filepath.Base(l.File), l.StartLine, l.Match)
	}
}

// TestReview27bGitleaksAKSServerAppID: an AKS kubeconfig's azure
// auth-provider names "apiserver-id: 6dae42f8-4368-4678-94ff-3960e28e3630",
// the application ID every AKS cluster's AAD integration shares: public,
// a look-alike redaction rightly keeps. gitleaks flags it
// (generic-api-key), and it is not in the documented allow-list: the check
// fails on a value public on purpose, with no reason written down.
func TestReview27bGitleaksAKSServerAppID(t *testing.T) {
	for _, l := range gitleaksOver27b(t, func(n string) bool { return n == "kubeconfig-variants.yaml" }) {
		t.Errorf("gitleaks %s in %s:%d: %q", l.RuleID, filepath.Base(l.File), l.StartLine, l.Match)
	}
}

// TestReview27bURLEncodedAddress: an address inside a percent-encoded URL
// (a redirect_uri, an upstream= in a log) stands between %2F and %3A,
// separators written as escapes, not letters. Seen: 172.22.41.93 and
// 192.168.77.14 left as they were, the rest of the folder mapped.
func TestReview27bURLEncodedAddress(t *testing.T) {
	text, _ := anonymizeFolder27b(t, "urlencoded")
	for _, a := range []string{"172.22.41.93", "192.168.77.14"} {
		if strings.Contains(text, a) {
			t.Errorf("%s left in a percent-encoded URL", a)
		}
	}
}

// TestReview27bAzureDNSSuffixKeepsMicrosoft: every Azure VM's DNS suffix
// is reddog.microsoft.com, the platform's, not the customer's. Anonymize
// may replace it, but not microsoft.com wherever it stands: seen
// mcr.microsoft.com (the image registry every Windows node pulls from) and
// the event schema's namespace http://schemas.microsoft.com/… rewritten to
// domain-….example.
func TestReview27bAzureDNSSuffixKeepsMicrosoft(t *testing.T) {
	text, _ := anonymizeDir27b(t, "azure-dns-suffix")
	for _, k := range []string{"mcr.microsoft.com/oss/kubernetes/pause:3.9", "xmlns='http://schemas.microsoft.com/win/2004/08/events/event'"} {
		if !strings.Contains(text, k) {
			t.Errorf("%s lost", k)
		}
	}
	leftUnnamed(t, text, "", "akswinp3x7")
}

// TestReview27bEventCSVMachineName: Get-WinEvent exported with
// Export-Csv states the host in its MachineName column (a field the
// anonymizer knows in Format-List and JSON). Seen: the domain part
// replaced, the host label lgwin-node12 left and not named as kept.
func TestReview27bEventCSVMachineName(t *testing.T) {
	text, stderr := anonymizeFolder27b(t, "events-csv")
	leftUnnamed(t, text, stderr, "lgwin-node12", "litware")
}

// TestReview27bUserNamesInPastes: user names as Windows prints them in a
// transcript: whoami's domain\user (lower case), icacls' DOMAIN\user:(F),
// net user's "User name" and "Full name", query user's USERNAME column.
// Seen: the domain side of DOMAIN\user replaced and the user side left
// (tkimura, ngarcia), and the others left; none named as kept.
func TestReview27bUserNamesInPastes(t *testing.T) {
	text, stderr := anonymizeDir27b(t, "users")
	leftUnnamed(t, text, stderr, "tkimura", "ngarcia", "opsadmin", "Priya Raman", "lhernandez")
}

// TestReview27bKubectlPodsTable: "kubectl get pods -A -o wide" names the
// Node each pod runs on (NODE column) and the customer's namespaces
// (NAMESPACE column), which anonymize promises to replace outside the
// cluster's own. Seen: tswin-pool09 and acme-prod left, not named as
// kept, while the pods' addresses were mapped.
func TestReview27bKubectlPodsTable(t *testing.T) {
	text, stderr := anonymizeFolder27b(t, "kubectl-pods")
	leftUnnamed(t, text, stderr, "tswin-pool09", "acme-prod")
}
