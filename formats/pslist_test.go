package formats

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

func loadText(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	return loadPath(t, filepath.Join("..", "testdata", "text", name))
}

func TestFormatListNetwork(t *testing.T) {
	for _, name := range []string{"seed-broken-get-hnsnetwork.txt", "seed-fixed-get-hnsnetwork.txt"} {
		t.Run(name, func(t *testing.T) {
			s := loadText(t, name)
			if s.Format != snapshot.FormatLoose || s.SourceKind != "file" || len(s.Networks) != 1 {
				t.Fatalf("format %q kind %q, %d networks", s.Format, s.SourceKind, len(s.Networks))
			}
			n := s.Networks[0]
			if n.Name != "Calico" || n.Type != snapshot.TypeOverlay || !n.ManagementIP.IsValid() || !n.HostRoute {
				t.Errorf("network: %+v", n)
			}
			if len(n.RemoteSubnetRoutes) != 1 {
				t.Fatalf("RSRs: %+v", n.RemoteSubnetRoutes)
			}
			r := n.RemoteSubnetRoutes[0]
			if r.DestinationPrefix != netip.MustParsePrefix("100.244.49.64/26") || r.ProviderAddress != netip.MustParseAddr("10.20.30.10") ||
				r.DrMAC != "66:a5:cc:c1:86:97" || r.IsolationID != 4096 {
				t.Errorf("RSR: %+v", r)
			}
			if len(n.Extensions) != 3 || n.Extensions[1].Name != "Microsoft Azure VFP Switch Extension" || !n.Extensions[1].Enabled || n.Extensions[0].Enabled {
				t.Errorf("extensions: %+v", n.Extensions)
			}
			if len(n.Subnets) != 1 || n.Subnets[0].Prefix != netip.MustParsePrefix("100.244.206.64/26") || n.Subnets[0].Gateway != netip.MustParseAddr("100.244.206.65") {
				t.Errorf("subnets: %+v", n.Subnets)
			}
			// The subnet's policies (the VSID) were printed as System.Object[]:
			// unknown, not zero.
			if n.Knows("Subnets") || n.Knows("Resources") || !n.Knows("Policies") || n.Subnets[0].VSID != 0 {
				t.Errorf("unknown fields: %v", n.Unknown)
			}
			// The VNI then comes from the next source, the visible route.
			if s.Facts.VNI.Value != "4096" || !strings.Contains(s.Facts.VNI.Source, "RemoteSubnetRoute IsolationId") {
				t.Errorf("VNI: %+v", s.Facts.VNI)
			}
		})
	}
}

func TestFormatListEndpoints(t *testing.T) {
	s := loadText(t, "calico-get-hnsendpoint.txt")
	if len(s.Endpoints) != 2 {
		t.Fatalf("%d endpoints", len(s.Endpoints))
	}
	pod, ep := s.Endpoints[0], s.Endpoints[1]
	if pod.IP != netip.MustParseAddr("100.244.206.67") || pod.State != 3 || pod.IsRemote || pod.ProviderAddress != netip.MustParseAddr("10.20.30.11") ||
		pod.MAC != "0e:2a:64:f4:ce:43" || pod.NamespaceID != "08191D89-ACE1-4E50-AACA-7A2F1D539171" || len(pod.Routes) != 1 || !pod.Routes[0].NeedEncap {
		t.Errorf("pod endpoint: %+v", pod)
	}
	if pod.OutboundNAT == nil || len(pod.OutboundNAT.Exceptions) != 0 || pod.Knows("Policies") {
		t.Errorf("hidden ExceptionList must be unknown, not empty: %+v %v", pod.OutboundNAT, pod.Unknown)
	}
	if !ep.IsRemote || ep.Name != "Calico_ep" || ep.NetworkID != "FAD80830-616C-4BC2-8758-BA64AEA8F627" {
		t.Errorf("Calico_ep: %+v", ep)
	}
	if s.Facts.DNSServiceIP.Value != "10.96.0.10" || s.Facts.ServiceCIDR.Value != "10.96.0.0/12" {
		t.Errorf("facts: %+v", s.Facts)
	}
}

func TestFormatListTruncatedAndLocalized(t *testing.T) {
	s := loadText(t, "flannel-get-hnsnetwork-truncated.txt")
	n := s.Networks[0]
	if len(n.RemoteSubnetRoutes) != 3 || n.Knows("Policies") {
		t.Errorf("truncated list: %d routes, unknown %v", len(n.RemoteSubnetRoutes), n.Unknown)
	}
	if !strings.Contains(strings.Join(n.Unknown, " "), "FormatEnumerationLimit") {
		t.Errorf("truncation not explained: %v", n.Unknown)
	}
	if n.Extensions[0].Name != "Microsoft Windows 筛选平台" || n.Extensions[1].ID != "F74F241B-440F-4433-BB28-00F89EAD20D8" {
		t.Errorf("extensions: %+v", n.Extensions)
	}
}

func TestFormatListUTF16AndProse(t *testing.T) {
	text, _ := os.ReadFile(filepath.Join("..", "testdata", "text", "seed-broken-get-hnsnetwork.txt"))
	doc := "The node was set up with Vagrant. Here is what HNS says:\r\n\r\n" + strings.ReplaceAll(string(text), "\n", "\r\n") +
		"\r\nOk, so the management IP looks wrong.\r\nName : this is prose with a colon, not a record\r\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "ticket.txt")
	os.WriteFile(p, utf16LE(doc), 0o600)
	s := loadPath(t, p)
	if len(s.Networks) != 1 || s.Networks[0].ManagementIP != netip.MustParseAddr("10.0.2.15") {
		t.Errorf("networks: %+v", s.Networks)
	}
}

func TestPSValue(t *testing.T) {
	v := psValue("{@{a=1; b=@{c={x, y}}}, plain, @{d=System.Object[]}}", 0)
	list, ok := v.([]any)
	if !ok || len(list) != 3 {
		t.Fatalf("%#v", v)
	}
	inner := list[0].(map[string]any)["b"].(map[string]any)["c"].([]any)
	if len(inner) != 2 || inner[1] != "y" || list[1] != "plain" {
		t.Errorf("%#v", list)
	}
	if _, ok := list[2].(map[string]any)["d"].(hidden); !ok {
		t.Errorf("System.Object[] not hidden: %#v", list[2])
	}
	// Nesting deeper than the bound stays a string instead of recursing.
	deep := strings.Repeat("@{a=", 10000) + "1" + strings.Repeat("}", 10000)
	psValue(deep, 0)
}

func TestUnidentifiedInput(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.txt")
	os.WriteFile(p, []byte("the pods cannot reach each other\nplease help\n"), 0o600)
	b, _ := bundle.Open(p, bundle.DefaultLimits)
	_, err := Load(b)
	// One short line: what it is, what diag expected, where to look.
	if err == nil || !strings.Contains(err.Error(), "cannot identify") || !strings.Contains(err.Error(), "collectlogs output") ||
		!strings.Contains(err.Error(), "diag analyze --help") || strings.Contains(err.Error(), "no format") || len(err.Error()) > 400 {
		t.Errorf("err = %v", err)
	}
}
