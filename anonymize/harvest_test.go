package anonymize

import (
	"bytes"
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
		"  --cluster-domain=cluster.local", "Name : Ethernet\r\n", "    image: node:16-alpine\n", "proxy http://myhost:8080/x\n",
		"Author : Microsoft\r\n", "Author : Microsoft Corporation\r\n",
	} {
		a := testAnonymizer()
		a.HarvestText([]byte(in))
		if len(a.Kept()) != 0 || len(a.Mapping().Names) != 0 {
			t.Errorf("%q: names %v, kept %+v", in, a.Mapping().Names, a.Kept())
		}
	}
}

// TestHarvestListsAndConfigs: lists of suffixes (Get-DnsClientGlobalSetting's
// {a, b}, JSON arrays), resolv.conf, HOMEPATH, a service's account, an
// ACL's owner, a task's author, an RDP client's name, an event's host.
func TestHarvestListsAndConfigs(t *testing.T) {
	for _, c := range []struct{ in, gone string }{
		{"SuffixSearchList : {corp.contoso-test.net, lab.fabrikam-test.org}\r\n", "contoso-test fabrikam-test"},
		{`{"SuffixSearchList": ["corp.contoso-test.net", "lab.fabrikam-test.org"]}`, "contoso-test fabrikam-test"},
		{"ConnectionSpecificSuffix : corp.contoso-test.net\r\n", "contoso-test"},
		{"search corp.contoso-test.net lab.fabrikam-test.org\ndomain corp.contoso-test.net\nnameserver 10.0.0.10\n", "contoso-test fabrikam-test"},
		{"HOMEPATH=\\Users\\jdoe-admin\r\n", "jdoe-admin"},
		{"StartName : FABRIKAMCORP\\svc-k8s-agent\r\n", "fabrikamcorp svc-k8s-agent"},
		{"Owner  : FABRIKAMCORP\\jdoe-admin\r\nGroup  : NT AUTHORITY\\SYSTEM\r\n", "fabrikamcorp jdoe-admin"},
		{"<Author>FABRIKAMCORP\\jdoe-admin</Author>", "fabrikamcorp jdoe-admin"},
		{"CLIENTNAME=JDOE-LAPTOP7\r\n", "jdoe-laptop7"},
		{"System Name : WINPOOL000042\r\nStart Name : FABRIKAMCORP\\svc-k8s-agent\r\n", "winpool000042 fabrikamcorp svc-k8s-agent"},
		{`"source": {"component": "kubelet", "host": "akswin000007"}`, "akswin000007"},
		{`I1126 10:01:02.123456 4120 x.go:72] "msg"="Attempting to register node" "node"="akswin000007"`, "akswin000007"},
		{`I1126 10:01:02.123456 4120 x.go:72] node &Node{ObjectMeta:{Name:akswin000007 Namespace:}} {NodeName:akswin000007}`, "akswin000007"},
		{"Addresses:\n  InternalIP:   10.0.0.4\n  Hostname:     akswin000007\n  InternalDNS:  akswin000007.corp.contoso-test.net\n", "akswin000007 contoso-test"},
	} {
		a := testAnonymizer()
		a.HarvestText([]byte(c.in))
		// The parent domains stand alone too.
		got := strings.ToLower(a.String(c.in + " contoso-test.net fabrikam-test.org " + c.gone))
		for _, g := range strings.Fields(c.gone) {
			if strings.Contains(got, g+".") || !strings.Contains(g, "-test") && strings.Contains(got, g) {
				t.Errorf("%q: %s left: %q", c.in, g, got)
			}
		}
	}
	a := testAnonymizer()
	a.HarvestText([]byte("UserId : S-1-5-18\r\nOwner : BUILTIN\\Administrators\r\n"))
	if n := a.Mapping().Names; len(n) != 0 {
		t.Errorf("a SID or a built-in group registered: %v", n)
	}
}

// FuzzHarvestText: any text harvests without a panic and in bounded
// time, twice alike, and every name it registers for free text is gone
// from the rewritten text where it stood alone on a line of its field.
func FuzzHarvestText(f *testing.F) {
	for _, s := range []string{
		"Username: FABRIKAMCORP\\jdoe-admin\r\nMachine: AKSWIN000007 (Microsoft Windows NT 10.0.20348.0)\r\n",
		`I1126 10:01:02.123456 4120 x.go:72] "Attempting to register node" node="akswin000007"`,
		`{"CsDomain": "corp.fabrikam-test.org", "SuffixSearchList": ["a.example.net", "b"], "Host Name": "n1"}`,
		"SuffixSearchList : {corp.contoso.com, lab}\nsearch a.b c.d\nHOMEPATH=\\Users\\x\n",
		"kubelet --hostname-override akswin --node-ip=10.0.0.4 -ComputerName x",
		"    - type: InternalDNS\n      address: w.corp.example.net\n",
		"=\n:\n{}\n[]\n\"\":\"\"\n--=\n",
		"PS C:\\> kubectl get nodes -o wide\nNAME    STATUS   ROLES   AGE\nwin-a   Ready    <none>  3d\n",
		"NAMESPACE   NAME   NODE\nacme   p-1   win-b\n\n USERNAME  SESSIONNAME\n>jdoe   rdp\n",
		"\"TimeCreated\",\"MachineName\"\n\"1\",\"win-c.corp.example\"\n\"2\n",
		"MachineName Id\n----------- --\nwin-d       7\n",
		"$env:NODENAME = \"win-e\"\nfab\\tkimura\nUserName : FAB\\svc\nx@corp.example\nRegistered Owner: A B\n",
		"PS C:\\> whoami\nfab\\x\nPS C:\\> kubectl top nodes\nNAME  CPU(cores)\nn1  1m\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a, b := testAnonymizer(), testAnonymizer()
		a.HarvestText(in)
		b.HarvestText(in)
		if ma, mb := a.Mapping(), b.Mapping(); len(ma.Names) != len(mb.Names) || len(a.Kept()) != len(b.Kept()) {
			t.Fatalf("two harvests differ on %q", in)
		}
		out := a.Text(in)
		for _, kv := range a.Mapping().Names {
			line := "Host Name : " + kv[0]
			if bytes.Contains(in, []byte(line+"\n")) && bytes.Contains(out, []byte(line+"\n")) {
				t.Fatalf("%s left in %q", kv[0], out)
			}
		}
	})
}

// BenchmarkHarvestText: a log in which every line mentions a node (the
// worst case: each is matched), 2 MiB.
func BenchmarkHarvestText(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 2<<20 {
		sb.WriteString("I1126 10:01:02.123456    4120 kubelet_node_status.go:72] \"Attempting to register node\" node=\"akswin000007\" --hostname-override akswin\n")
		sb.WriteString("  \"nodeName\": \"akswin000007\",\n  \"hostIP\": \"10.1.2.3\", \"items\": [\"a\", \"b\"]\n")
	}
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		testAnonymizer().HarvestText(in)
	}
}

// Calico for Windows' config.ps1 states the node's name in PowerShell
// assignments; a short one is replaced there and named as kept.
func TestHarvestPowerShellAssignment(t *testing.T) {
	a := testAnonymizer()
	in := []byte("$env:KUBE_NETWORK = \"Calico.*\"\n$env:NODENAME = \"aksnpwin8r\"\n$env:CALICO_NODENAME=\"winworker-tahoe3\"\n" +
		"  $env:K8S_NODE_NAME = 'winworker-shasta4' # set by install\n$NodeName = \"vm\"\n$env:CNI_BIN_DIR = \"c:\\k\\cni\"\n")
	a.HarvestText(in)
	out := string(a.Text(in))
	for _, s := range []string{"aksnpwin8r", "winworker-tahoe3", "winworker-shasta4", `"vm"`} {
		if strings.Contains(out, s) {
			t.Errorf("%s left: %s", s, out)
		}
	}
	if !strings.Contains(out, `"Calico.*"`) || !strings.Contains(out, `c:\k\cni`) {
		t.Errorf("other values changed: %s", out)
	}
}

// systeminfo's Registered Owner and Organization, Get-ComputerInfo's
// JSON and net user's Full name and User name name a person or the
// customer: replaced as whole words wherever they stand; Windows'
// defaults stay.
func TestHarvestOwnerAndFullName(t *testing.T) {
	a := testAnonymizer()
	in := []byte("Registered Owner:          Mark Baker\r\nRegistered Organization:   Tailspin Toys\r\n" +
		"{\"WindowsRegisteredOrganization\": \"Wide World Importers\", \"WindowsRegisteredOwner\": \"Windows User\"}\n" +
		"User name                    opsadmin\nFull name                    Priya Raman\n" +
		"    RegisteredOwner    REG_SZ    Jun Tanaka\r\nRegisteredUser : Ola Nordmann\n" +
		"note: Mark Baker of Tailspin Toys asked; Bookmark Bakery; wide world importers; Windows User\n")
	a.HarvestText(in)
	out := string(a.Text(in))
	for _, s := range []string{"Mark Baker", "Tailspin Toys", "Wide World Importers", "wide world importers", "opsadmin", "Priya Raman", "Jun Tanaka", "Ola Nordmann"} {
		if strings.Contains(out, s) {
			t.Errorf("%s left: %s", s, out)
		}
	}
	for _, s := range []string{"Bookmark Bakery", "Windows User", "Registered Owner:", "Full name "} {
		if !strings.Contains(out, s) {
			t.Errorf("%s lost: %s", s, out)
		}
	}
}

// DOMAIN\user where DOMAIN is a Windows domain the bundle states: the
// user is replaced too, whichever file states the domain; paths, built-in
// accounts and groups of several words stay.
func TestHarvestAccountsOfKnownDomain(t *testing.T) {
	a := testAnonymizer()
	in := []byte("PS C:\\> whoami\nfab\\tkimura\nC:\\k NT AUTHORITY\\SYSTEM:(OI)(CI)(F)\n     FAB\\ngarcia:(OI)(CI)(F)\n" +
		"FAB\\Domain Admins:(F)\nFAB\\Administrator:(F)\nOTHER\\someone\nC:\\k\\cni\\config\nFAB\\WIN-NODE7$ logged on\n")
	a.HarvestText(in)
	a.HarvestText([]byte("UserName : FAB\\svc-kubelet\n")) // the domain, stated after
	out := string(a.Text(in))
	for _, s := range []string{"tkimura", "ngarcia", "WIN-NODE7", "fab\\", "FAB\\"} {
		if strings.Contains(out, s) {
			t.Errorf("%s left: %s", s, out)
		}
	}
	for _, s := range []string{"\\Domain Admins", "\\Administrator", "OTHER\\someone", "C:\\k\\cni\\config", "NT AUTHORITY\\SYSTEM"} {
		if !strings.Contains(out, s) {
			t.Errorf("%s lost: %s", s, out)
		}
	}
}
