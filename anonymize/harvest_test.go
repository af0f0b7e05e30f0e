package anonymize

import (
	"strings"
	"testing"
)

// harvestShapes write "key states value" the ways diag's inputs do:
// Format-List, ipconfig's dot leaders, YAML (plain and quoted), an
// environment dump, JSON, XML, klog's key="value", flags, and a
// transcript header's "Key: value (more)".
var harvestShapes = []string{
	"%k : %v\r\n",
	"   %k . . . . . . . . : %v\r\n",
	"  %k: %v\n",
	"  %k: \"%v\"\n",
	"%k=%v\n",
	`{"%k": "%v", "x": 1}`,
	"<%k>%v</%k>",
	`I1126 10:01:02.123456 4120 x.go:72] "msg" %k="%v" other="x"`,
	"C:\\k\\kubelet.exe --%k=%v --v=4",
	"kubelet --%k %v --v=4",
	"Invoke-Command -%k %v -ScriptBlock {}",
	"%k: %v (Microsoft Windows NT 10.0.20348.0)\r\n",
}

// inLine: a shape of a key inside a line (a pair, a flag) or an XML
// element, which takes no key with spaces or a slash.
func inLine(s string) bool {
	return strings.Contains(s, "--") || strings.HasPrefix(s, "Invoke") || strings.HasPrefix(s, "I1126") || strings.HasPrefix(s, "<")
}

func shape(s, k, v string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "%k", k), "%v", v)
}

// TestHarvestEveryShape: every key that states a host, node, domain or
// user, in every shape: a name long enough for free text is replaced
// there and in its field; a short one is replaced in its field and named
// as kept; a DOMAIN\user and user@domain lose both sides.
func TestHarvestEveryShape(t *testing.T) {
	hostKeys := []string{"Host Name", "HostName", "hostname", "ComputerName", "COMPUTERNAME", "CsName", "CsCaption", "CsDNSHostName",
		"DNSHostName", "MachineName", "Machine", "Computer", "nodeName", "NodeName", "node", "kubernetes.io/hostname",
		"hostname-override", "PSComputerName", "SystemName", "Full Computer Name", "nodeFQDN"}
	domainKeys := []string{"CsDomain", "Domain", "Primary Dns Suffix", "DnsSuffix", "USERDNSDOMAIN", "DNSDomain", "domainName"}
	userKeys := []string{"Username", "RunAs User", "UserName", "USERNAME", "AccountName", "CsUserName"}
	for _, sh := range harvestShapes {
		for _, k := range hostKeys {
			if inLine(sh) && strings.ContainsAny(k, " /") {
				continue
			}
			for _, v := range []string{"AKSWIN000007", "n1"} {
				a := testAnonymizer()
				in := shape(sh, k, v)
				a.HarvestText([]byte(in))
				got := a.String(in)
				if strings.Contains(strings.ToLower(got), strings.ToLower(v)) {
					t.Errorf("host %q: %q -> %q", k, in, got)
				}
				if len(v) < minNameLen && !keptName(a, "n1", KindHost) {
					t.Errorf("host %q: %q: n1 not named as kept: %+v", k, in, a.Kept())
				}
			}
		}
		for _, k := range domainKeys {
			if inLine(sh) && strings.ContainsAny(k, " /") {
				continue
			}
			a := testAnonymizer()
			in := shape(sh, k, "lab.contoso-test.net")
			a.HarvestText([]byte(in))
			if got := a.String(in + " contoso-test.net"); strings.Contains(got, "contoso") {
				t.Errorf("domain %q: %q -> %q", k, in, got)
			}
		}
		for _, k := range userKeys {
			for _, v := range []string{`FABRIKAMCORP\jdoe-admin`, "jdoe-admin@corp.fabrikam-test.org"} {
				if inLine(sh) && strings.ContainsAny(k, " /") || strings.Contains(sh, "--") || strings.HasPrefix(sh, "Invoke") || strings.Contains(sh, "<") && strings.Contains(v, `\`) {
					continue // no flag or XML element of these names takes DOMAIN\user
				}
				a := testAnonymizer()
				in := shape(sh, k, v)
				if strings.HasPrefix(sh, "{") {
					in = shape(sh, k, strings.ReplaceAll(v, `\`, `\\`))
				}
				a.HarvestText([]byte(in))
				got := strings.ToLower(a.String(in))
				for _, leak := range []string{"fabrikam", "jdoe"} {
					if strings.Contains(got, leak) {
						t.Errorf("user %q: %q -> %q", k, in, got)
					}
				}
			}
		}
	}
}

func keptName(a *Anonymizer, name, kind string) bool {
	for _, k := range a.Kept() {
		if k.Name == name && k.Kind == kind {
			return true
		}
	}
	return false
}

// TestHarvestShortUser: a user name too short for free text is replaced
// in the field that states it and named as kept, as a host name is; a
// machine's account (HOST$) names the host.
func TestHarvestShortUser(t *testing.T) {
	a := testAnonymizer()
	in := "Username: CORP\\jd\r\nRunAs User: CORP\\jd\r\nUSERNAME=AKSWIN000007$\r\n"
	a.HarvestText([]byte(in))
	got := a.String(in)
	if strings.Contains(got, `\jd`) || strings.Contains(got, "AKSWIN000007") {
		t.Errorf("%q -> %q", in, got)
	}
	if !keptName(a, "jd", KindUser) {
		t.Errorf("jd not named as kept: %+v", a.Kept())
	}
}

// TestHarvestNodeAddresses: a Node's Hostname, InternalDNS and
// ExternalDNS addresses state its FQDN, in kubectl's JSON and YAML, either
// field first: the host and the domain go.
func TestHarvestNodeAddresses(t *testing.T) {
	for _, in := range []string{
		`{"type": "InternalDNS", "address": "winw1.corp-int.contoso-lab.net"}`,
		`{"address": "winw1.corp-int.contoso-lab.net", "type": "ExternalDNS"}`,
		"    - type: InternalDNS\n      address: winw1.corp-int.contoso-lab.net\n",
		"    - address: winw1.corp-int.contoso-lab.net\n      type: InternalDNS\n",
	} {
		a := testAnonymizer()
		a.HarvestText([]byte(in))
		if got := a.String(in + " corp-int.contoso-lab.net winw1"); strings.Contains(got, "contoso") || strings.Contains(got, "winw1") {
			t.Errorf("%q -> %q", in, got)
		}
	}
}

// TestHarvestNotNames: values of such keys that name no one, and keys
// that only look like them, register nothing.
func TestHarvestNotNames(t *testing.T) {
	for _, in := range []string{
		"CsPartOfDomain : True\r\n", "UseHostname: false\n", "Domain : WORKGROUP\r\n", "hostNetwork: true\n", "DomainRole : MemberServer\r\n",
		"Username: NT AUTHORITY\\SYSTEM\r\n", "USERNAME=SYSTEM\n", `{"fqdnPolicy": "Prefer"}`, "Host: kubernetes.default.svc\r\n",
		`{"hostname": "coredns-5d78c9869d-abcde.kube-dns.kube-system.svc.cluster.local"}`, "server: https://10.0.0.1:6443\n",
		"  --cluster-domain=cluster.local", "Name : Ethernet\r\n",
	} {
		a := testAnonymizer()
		a.HarvestText([]byte(in))
		if len(a.Kept()) != 0 || len(a.Mapping().Names) != 0 {
			t.Errorf("%q: names %v, kept %+v", in, a.Mapping().Names, a.Kept())
		}
	}
}
