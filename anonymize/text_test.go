package anonymize

import (
	"net/netip"
	"strings"
	"testing"
)

func testAnonymizer() *Anonymizer {
	var k Key
	copy(k[:], referenceKey)
	return New(k)
}

// TestTextShapes: what is an address and what is not, and that the rest
// of the text stays byte for byte.
func TestTextShapes(t *testing.T) {
	a := testAnonymizer()
	for _, keep := range []string{
		"10.0.17763.1", "v1.2.3.4", "1.2.3.4.5", "127.0.0.1", "0.0.0.0/0", "255.255.255.0", "224.0.0.251",
		"10.0.2.15", "192.168.255.1", "[IO.Path]::Combine", "12:30:45", "::1", "ff02::1", "ff-ff-ff-ff-ff-ff",
		"01-00-5e-00-00-fb", "8A37B7B4-6C0C-4E7C-9A8B-1234567890AB", "build 20348.2340", "\"Port\": 4789,",
	} {
		if got := a.String(keep); got != keep {
			t.Errorf("%q -> %q, want it kept", keep, got)
		}
	}
	for _, change := range []string{
		"10.244.1.5", "\"IpAddress\":\"172.17.0.2\"", "8.8.8.8", "fe80::1c2b:3dff:fe4c:5d6e%12", "2001:4860::8888",
		"00-15-5D-64-51-0E", "c6:71:81:86:b2:77", "--cluster-cidr=10.244.0.0/16",
	} {
		if got := a.String(change); got == change {
			t.Errorf("%q kept, want it mapped", change)
		}
	}
	in := "route: 10.244.0.0    255.255.0.0      10.0.0.1  eth0\n"
	got := a.String(in)
	if !strings.Contains(got, "255.255.0.0") || !strings.HasSuffix(got, "  eth0\n") {
		t.Errorf("%q -> %q", in, got)
	}
	f := strings.Fields(got)
	if p := netip.MustParsePrefix(f[1] + "/16"); p.Masked() != p {
		t.Errorf("route destination %s is no longer a /16 network", f[1])
	}
}

// TestPrefixesContainTheirAddresses: the relation every overlay rule
// leans on, kept for private, APIPA and public ranges, with canonical
// prefixes staying canonical.
func TestPrefixesContainTheirAddresses(t *testing.T) {
	a := testAnonymizer()
	for _, c := range []struct{ prefix, addr string }{
		{"10.244.0.0/16", "10.244.3.7"}, {"10.244.3.0/24", "10.244.3.1"}, {"172.16.0.0/12", "172.20.1.1"},
		{"169.254.0.0/16", "169.254.3.4"}, {"20.50.0.0/16", "20.50.7.9"}, {"10.96.0.0/12", "10.96.0.10"},
		{"fd00:10:244::/56", "fd00:10:244:1::5"},
	} {
		p := a.addrs.Prefix(netip.MustParsePrefix(c.prefix))
		x := a.Addr(netip.MustParseAddr(c.addr))
		if p.Masked() != p || !p.Contains(x) {
			t.Errorf("%s -> %s, %s -> %s: not contained or not canonical", c.prefix, p, c.addr, x)
		}
		orig := netip.MustParseAddr(c.addr)
		if x.IsPrivate() != orig.IsPrivate() || x.IsLinkLocalUnicast() != orig.IsLinkLocalUnicast() {
			t.Errorf("%s -> %s changed its class", orig, x)
		}
	}
	// A CIDR with host bits set keeps them set (CNI-02 looks for those).
	if p := a.addrs.Prefix(netip.MustParsePrefix("172.17.0.1/16")); p.Masked() == p {
		t.Errorf("172.17.0.1/16 -> %s lost its host bits", p)
	}
}

// TestMACSpellings: one MAC in every spelling maps to one MAC, the bits
// that say multicast and locally administered stay, and a flannel MAC
// still embeds the mapped VTEP address.
func TestMACSpellings(t *testing.T) {
	a := testAnonymizer()
	x, y := a.String("00-15-5D-64-51-0E"), a.String("00:15:5d:64:51:0e")
	if strings.ReplaceAll(strings.ToLower(x), "-", ":") != y {
		t.Errorf("%s and %s: one MAC mapped two ways", x, y)
	}
	if !strings.HasPrefix(x, "00-15-5D-") {
		t.Errorf("%s: vendor not kept", x)
	}
	// QEMU's MACs are locally administered but hold no address.
	if q := a.String("52:54:00:12:35:02"); q == "52:54:00:12:35:02" || !strings.HasPrefix(q, "52:54:00:") {
		t.Errorf("QEMU MAC -> %s", q)
	}
	vtep := a.Addr(netip.MustParseAddr("10.127.130.36")).As4()
	mac := a.String("0E-2A-0A-7F-82-24")
	want := "0E-2A-" + strings.ToUpper(macString([6]byte{0, 0, vtep[0], vtep[1], vtep[2], vtep[3]})[6:])
	if mac != want {
		t.Errorf("flannel MAC -> %s, want %s", mac, want)
	}
}

// TestNames: a registered host name is replaced as a word, in an FQDN, in
// upper case, and not inside another word.
func TestNames(t *testing.T) {
	a := testAnonymizer()
	a.AddName(KindHost, "win-node-1.contoso.local")
	got := a.String(`"node": "win-node-1", fqdn WIN-NODE-1.contoso.local, file win-node-1.log, kwin-node-10`)
	if strings.Contains(strings.ToLower(got), "win-node-1") && !strings.Contains(got, "kwin-node-10") || strings.Contains(got, "contoso") {
		t.Errorf("got %q", got)
	}
	if !strings.Contains(got, "kwin-node-10") {
		t.Errorf("a longer word was changed: %q", got)
	}
	a.AddName(KindHost, "windows")
	if got := a.String(`"kubernetes.io/os": "windows"`); got != `"kubernetes.io/os": "windows"` {
		t.Errorf("a well-known word was replaced: %q", got)
	}
}

// TestHarvestText: names stated by ipconfig /all, systeminfo, environment
// dumps, WMI JSON and profile paths are registered and replaced; built-in
// accounts and Kubernetes' own DNS suffixes are not.
func TestHarvestText(t *testing.T) {
	a := testAnonymizer()
	a.HarvestText([]byte("   Host Name . . . . . . . . . . . . : WIN-AB12CD\r\n" +
		"   Primary Dns Suffix  . . . . . . . : corp.contoso.com\r\n" +
		"   DNS Suffix Search List. . . . . . : corp.contoso.com\r\n" +
		"                                       lab.fabrikam.net\r\n" +
		"Domain:                    corp.contoso.com\n" +
		"USERNAME=jdoe\n" +
		`{"CSName": "WIN-AB12CD", "DNSSuffix": "default.svc.cluster.local"}` + "\n" +
		`C:\Users\alice\AppData C:\Users\Public\x /home/bob/.kube/config` + "\n"))
	in := "WIN-AB12CD win-ab12cd.corp.contoso.com lab.fabrikam.net jdoe alice bob Public default.svc.cluster.local"
	got := a.String(in)
	for _, leak := range []string{"ab12cd", "contoso", "fabrikam", "jdoe", "alice", "bob"} {
		if strings.Contains(strings.ToLower(got), leak) {
			t.Errorf("%q left in %q", leak, got)
		}
	}
	for _, kept := range []string{"Public", "default.svc.cluster.local"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q replaced: %q", kept, got)
		}
	}
	if fe := a.String("fe80::1c2b:3dff:fe4c:5d6e"); !strings.HasPrefix(fe, "fe80::") {
		t.Errorf("link-local -> %s: its fe80:: prefix is not kept", fe)
	}
}

// TestTextBoundaries: addresses after a colon, a dash, an underscore or a
// JSON escape, and inside a longer word, are found (each was once left).
func TestTextBoundaries(t *testing.T) {
	a := testAnonymizer()
	a.AddName(KindHost, "win-node1")
	for _, in := range []string{"IPAddress:10.1.2.3", "addr:fe80::1c2b:3dff:fe4c:5d6e", "mac:00-15-5D-0A-7C-21", "host-10.1.2.3", "pod_10.1.2.3",
		`{"message":"x\n10.1.2.3:443\tfd00::5:6:7\nwin-node1"}`, `"\u003c10.1.2.3\u003e"`, "fd00::10: error", "kubelet_win-node1.log"} {
		got := a.String(in)
		for _, leak := range []string{"10.1.2.3", "fe4c:5d6e", "0A-7C-21", "fd00::5", "fd00::10", "win-node1"} {
			if strings.Contains(in, leak) && strings.Contains(got, leak) {
				t.Errorf("%q -> %q: %s left", in, got, leak)
			}
		}
	}
	for _, keep := range []string{"v1.2.3.4", "1.2.3.4.5", "0A:7C:21:00-15", "abc123.4.5.6"} {
		if got := a.String(keep); got != keep {
			t.Errorf("%q -> %q", keep, got)
		}
	}
}

// TestNameShapes: JSON-escaped profile paths, DOMAIN\user, the logon
// server, a parent domain, an FQDN with a well-known part, and names that
// are words of the formats.
func TestNameShapes(t *testing.T) {
	a := testAnonymizer()
	a.HarvestText([]byte(`{"Path":"C:\\Users\\jdoe\\x","UserName":"CONTOSO\\mbrown"}` + "\n" + "   Logon Server: \\\\CORP-DC01\n"))
	a.AddName(KindDomain, "corp.fabrikam.com")
	a.AddName(KindHost, "master.contoso.com")
	a.AddName(KindHost, "win-1.local")
	a.AddName(KindNamespace, "overlay")
	a.AddName(KindName, "proxy")
	got := a.String(`jdoe mbrown CONTOSO CORP-DC01 fabrikam.com master.contoso.com win-1.local "Type": "Overlay" config/kube-proxy/cmdline.txt`)
	for _, leak := range []string{"jdoe", "mbrown", "CONTOSO ", "CORP-DC01", "fabrikam", "win-1."} {
		if strings.Contains(got, leak) {
			t.Errorf("%q left: %q", leak, got)
		}
	}
	// A stated host name too common for free text (master) still goes
	// with its FQDN, which is specific; the word alone stays.
	if strings.Contains(got, "master.") || !strings.Contains(a.String("the master branch"), "master") {
		t.Errorf("master: %q", got)
	}
	for _, kept := range []string{`"Type": "Overlay"`, "config/kube-proxy/cmdline.txt", ".local"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q changed: %q", kept, got)
		}
	}
}

// TestNamesAndAddressesInsideWords: a user in a profile path, a host in
// a log's path, a namespace inside a longer name, an address in a JSON
// escape, after an underscore or before a port go (each was once left);
// another user's path, MAC-like and IPv6-like words and long runs of
// separators stay as they were.
func TestNamesAndAddressesInsideWords(t *testing.T) {
	a := testAnonymizer()
	a.HarvestText([]byte("USERNAME=bob\n"))
	a.AddName(KindHost, "build01")
	a.AddName(KindNamespace, "payments")
	for _, in := range []string{`C:\Users\bob\AppData`, `C:\logs\build01\x.log`, "payments-api kube-payments",
		`{"Message":"Address \u002710.1.2.3\u0027"}`, "ping_10.1.2.3_out.txt LB_10.0.0.1_80 10.1.2.3_80", "db:10.0.0.5 12:10.1.2.3 cafe:10.1.2.3"} {
		got := a.String(in)
		for _, leak := range []string{"bob", "build01", "payments", "10.1.2.3", "10.0.0.1", "10.0.0.5"} {
			if strings.Contains(in, leak) && strings.Contains(got, leak) {
				t.Errorf("%q -> %q: %s left", in, got, leak)
			}
		}
	}
	for _, keep := range []string{`C:\Users\nancy\x`, "aa-02-03-04-05-06-07", "Add::Face cafe::beef A::B", "a-dead::beef-b", strings.Repeat("-", 4000), strings.Repeat("a_", 2000)} {
		if got := a.String(keep); got != keep {
			t.Errorf("%.60q changed to %.60q", keep, got)
		}
	}
}

// An address or name inside a percent-encoded URL is mapped; the escapes
// stay as they were.
func TestPercentEncodedURL(t *testing.T) {
	a := testAnonymizer()
	a.AddName(KindHost, "tswin-app02")
	in := "redirect_uri=http%3A%2F%2F172.22.41.93%3A8080%2Fcb&u=https%3a%2f%2ftswin-app02%3A443 x=100%2050 fd=%5Bfd00%3A%3A5%5D twice=http%253A%252F%252F10.31.7.9%253A80"
	out := string(a.Text([]byte(in)))
	for _, s := range []string{"172.22.41.93", "tswin-app02", "10.31.7.9", "fd00%3A%3A5"} {
		if strings.Contains(out, s) {
			t.Errorf("%s left: %s", s, out)
		}
	}
	for _, s := range []string{"http%3A%2F%2F", "%3A8080%2Fcb", "100%2050", "fd=%5Bf", "%3A5%5D twice"} {
		if !strings.Contains(out, s) {
			t.Errorf("%s lost: %s", s, out)
		}
	}
}
