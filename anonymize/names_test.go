package anonymize

import (
	"strings"
	"testing"
)

// TestLayoutWordsAsHostNames: a host or node named like a folder of the
// bundle (a control plane called k8s) must not rename that folder, nor
// the API groups and labels that carry the word (discovery.k8s.io,
// k8s-app): analyze would no longer find k8s/nodes.json. Such a name is
// replaced where a field states it and named as kept.
func TestLayoutWordsAsHostNames(t *testing.T) {
	for _, word := range []string{"k8s", "capture", "kubelet", "containerd", "hns", "vfp", "host", "logs", "config", "linux"} {
		a := testAnonymizer()
		a.AddName(KindHost, word)
		for _, p := range []string{word + "/nodes.json", "logs/" + word + "/x.log", "config/" + word + "/cmdline.txt"} {
			if got := a.entryName(p); got != p {
				t.Errorf("host %q: entry %s renamed to %s", word, p, got)
			}
		}
		for _, keep := range []string{`"apiVersion": "discovery.` + word + `.io/v1"`, `"` + word + `-app": "kube-dns"`} {
			if got := a.String(keep); got != keep {
				t.Errorf("host %q: %s changed to %s", word, keep, got)
			}
		}
		if got := a.String(`{"nodeName": "` + word + `"}`); strings.Contains(got, `"`+word+`"`) {
			t.Errorf("host %q: a field stating it keeps it: %s", word, got)
		}
		kept := a.Kept()
		if len(kept) != 1 || kept[0].Name != word {
			t.Errorf("host %q: not named as kept: %+v", word, kept)
		}
	}
}

// TestFQDNFieldsAndSingleLabelSuffixes: an FQDN field (fqdn, FQDN,
// nodeFQDN, FullyQualifiedDomainName) states a host name as DNSHostName
// and ComputerName do, so a short host label in it (vm) goes; a
// single-label DNS suffix (m1, contosocorp) is replaced where a field
// states it and named as kept, since free text may hold it as a word.
func TestFQDNFieldsAndSingleLabelSuffixes(t *testing.T) {
	for _, c := range []struct{ in, gone string }{
		{`{"fqdn": "vm.corp.contoso.com"}`, `"vm.`},
		{`{"FQDN": "VM.corp.contoso.com"}`, `"VM.`},
		{`{"nodeFQDN": "vm.corp.contoso.com", "hostname": "vm"}`, `"vm`},
		{`{"FullyQualifiedDomainName": "vm.corp.contoso.com"}`, `"vm.`},
		{`{"MachineName": "vm"}`, `"vm"`},
		{"FQDN : vm.corp.contoso.com\r\n", ": vm."},
	} {
		a := testAnonymizer()
		a.HarvestText([]byte(c.in))
		got := a.String(c.in)
		if strings.Contains(got, c.gone) || strings.Contains(got, "contoso") {
			t.Errorf("%s\n  -> %s", c.in, got)
		}
		if kept := a.Kept(); len(kept) == 0 || kept[0].Name != "vm" {
			t.Errorf("%s: vm not named as kept: %+v", c.in, kept)
		}
	}
	for _, c := range []struct{ in, suffix, reason string }{
		{"   Primary Dns Suffix  . . . . . . . : m1\r\n", "m1", "2 characters"},
		{"   Primary Dns Suffix  . . . . . . . : contosocorp\r\n", "contosocorp", "a single-label DNS suffix"},
		{"   Connection-specific DNS Suffix  . : contosocorp\r\n", "contosocorp", "a single-label DNS suffix"},
		{`{"PrimaryDnsSuffix": "contosocorp"}`, "contosocorp", "a single-label DNS suffix"},
	} {
		a := testAnonymizer()
		a.HarvestText([]byte(c.in))
		if got := a.String(c.in); strings.Contains(got, c.suffix) {
			t.Errorf("%s\n  -> %s: the suffix stayed in its field", c.in, got)
		}
		kept := a.Kept()
		if len(kept) != 1 || kept[0].Name != c.suffix || kept[0].Kind != KindDomain || kept[0].Reason != c.reason {
			t.Errorf("%s: kept %+v", c.in, kept)
		}
	}
	// Not names: a workgroup, Kubernetes' search suffix, a key that only
	// starts with fqdn.
	for _, in := range []string{
		`{"Domain": "WORKGROUP"}`, "   DNS Suffix Search List. . . . . . : svc\r\n", `{"fqdnPolicy": "Prefer"}`,
		"   Primary Dns Suffix  . . . . . . . : \r\n",
	} {
		a := testAnonymizer()
		a.HarvestText([]byte(in))
		if got := a.String(in); got != in || len(a.Kept()) != 0 {
			t.Errorf("%s\n  -> %s (kept %+v)", in, got, a.Kept())
		}
	}
}

// A DNS suffix under a platform's domain maps its own labels only: the
// platform's domain stays wherever it stands (image names, XML namespaces).
func TestPlatformDomainKept(t *testing.T) {
	a := testAnonymizer()
	a.HarvestText([]byte("   DNS Suffix Search List. . . . . . : reddog.microsoft.com\n" +
		"   Connection-specific DNS Suffix  . : kx3vq2.ax.internal.cloudapp.net\n" +
		"search us-west-2.compute.internal corp.contoso.com\n" +
		"   Primary Dns Suffix  . . . . . . . : windows.net\n"))
	in := "reddog.microsoft.com mcr.microsoft.com/oss/pause:3.9 kx3vq2.ax.internal.cloudapp.net abc.internal.cloudapp.net " +
		"us-west-2.compute.internal ip-10-0-1-5.ec2.internal corp.contoso.com contoso.com core.windows.net"
	out := string(a.Text([]byte(in)))
	for _, s := range []string{"mcr.microsoft.com/oss/pause:3.9", ".microsoft.com ", "abc.internal.cloudapp.net", ".internal.cloudapp.net ", ".compute.internal ", "core.windows.net"} {
		if !strings.Contains(out, s) {
			t.Errorf("%q lost: %s", s, out)
		}
	}
	for _, s := range []string{"reddog", "kx3vq2", "us-west-2", "contoso"} {
		if strings.Contains(out, s) {
			t.Errorf("%q left: %s", s, out)
		}
	}
}
