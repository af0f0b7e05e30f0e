package anonymize

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/wincni/diag/gen"
)

// FuzzText: any text rewrites without a panic; what is not an address, a
// MAC or a registered name stays (text with none of their characters comes
// out byte for byte); valid UTF-8 stays valid; the rewrite is a function
// of its input.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		"10.244.1.5/24 fe80::1%12 00-15-5D-64-51-0E c6:71:81:86:b2:77 win-node-1.contoso.local",
		"   Network Destination        Netmask          Gateway\n          0.0.0.0          0.0.0.0      10.0.2.2\n     10.244.0.0    255.255.0.0   On-link\n",
		`{"IPAddress":"10.244.1.7","MacAddress":"0E-2A-0A-F4-01-07","DNSSuffix":"default.svc.cluster.local"}`,
		"winw1-100-244-206-64-26 ip-10-0-1-5.ec2.internal [IO.Path]::Combine 10.0.17763.1 v1.2.3.4",
		"1.2.3.4/ 1.2.3.4/33 ::ffff:10.1.2.3 2001:db8::/32 1:2:3:4:5:6:7:8:9",
		"Host Name . . . : VM\n{\"nodeName\": \"vm\", \"affinity\": \"host:vm\"} --hostname-override=vm <ComputerName>vm</ComputerName> FabrikamWeb",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a := testAnonymizerWith("win-node-1.contoso.local")
		out := a.Text(in)
		if again := testAnonymizerWith("win-node-1.contoso.local").Text(in); !bytes.Equal(out, again) {
			t.Fatalf("two runs differ on %q", in)
		}
		if utf8.Valid(in) && !utf8.Valid(out) {
			t.Fatalf("valid UTF-8 in, invalid out: %q -> %q", in, out)
		}
		if !bytes.ContainsAny(in, "0123456789abcdefABCDEF:.-_=</") && !bytes.Equal(in, out) {
			t.Fatalf("%q changed to %q", in, out)
		}
	})
}

// testAnonymizerWith registers name, a host too short for free text (vm)
// and a keyword.
func testAnonymizerWith(name string) *Anonymizer {
	a := testAnonymizer()
	a.AddName(KindHost, name)
	a.AddName(KindHost, "vm")
	if err := a.AddKeyword("fabrikam"); err != nil {
		panic(err)
	}
	return a
}

// FuzzCapture: any file rewrites without a panic; a classic pcap keeps its
// length (addresses are mapped in place); what comes out rewrites again.
func FuzzCapture(f *testing.F) {
	dir := f.TempDir()
	pkts := gen.Handshake(0, "10.127.130.36", "10.127.130.37", "10.244.1.5", "10.244.2.7", 40000, 80, 4096, "00-15-5D-64-51-0E", "0E-2A-0A-F4-02-00")
	for _, w := range []func(string) error{
		func(p string) error { return gen.WritePcap(p, pkts) },
		func(p string) error { return gen.WritePcapng(p, pkts, 80) },
	} {
		p := filepath.Join(dir, "seed")
		if err := w(p); err != nil {
			f.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	if seed, err := os.ReadFile(filepath.Join("..", "testdata", "captures", "seed-syn-unanswered.pcap")); err == nil {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a := testAnonymizer()
		orig := len(in)
		out, err := a.Capture(append([]byte(nil), in...)) // a pcap is rewritten in place
		if err != nil {
			return
		}
		if len(in) >= 4 && (in[0] == 0xd4 || in[0] == 0xa1 || in[0] == 0x4d) && len(out) != orig {
			t.Fatalf("pcap of %d bytes became %d", orig, len(out))
		}
		if _, err := a.Capture(out); err != nil {
			t.Fatalf("the output does not read back: %v", err)
		}
	})
}

// TestAddrIsABijection: no two addresses of a sample across every range
// map to one, and mapping is the same every time.
func TestAddrIsABijection(t *testing.T) {
	a := testAnonymizer()
	seen := map[netip.Addr]netip.Addr{}
	for _, base := range []string{"10.0.0.0", "10.0.2.0", "172.16.0.0", "192.168.255.0", "169.254.0.0", "8.8.0.0", "100.64.0.0", "223.255.0.0"} {
		b := netip.MustParseAddr(base).As4()
		for i := 0; i < 1024; i++ {
			x := netip.AddrFrom4([4]byte{b[0], b[1], b[2] + byte(i>>8), byte(i)})
			y := a.Addr(x)
			if prev, ok := seen[y]; ok && prev != x {
				t.Fatalf("%s and %s both map to %s", prev, x, y)
			}
			seen[y] = x
			if a.Addr(x) != y {
				t.Fatalf("%s maps two ways", x)
			}
		}
	}
}
