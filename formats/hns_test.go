package formats

import (
	"bytes"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/wincni/diag/snapshot"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func utf16LE(s string) []byte {
	var buf bytes.Buffer
	buf.Write([]byte{0xFF, 0xFE})
	for _, u := range utf16.Encode([]rune(s)) {
		buf.WriteByte(byte(u))
		buf.WriteByte(byte(u >> 8))
	}
	return buf.Bytes()
}

func TestParseV2Networks(t *testing.T) {
	nets, err := ParseNetworks(readTestdata(t, "v2-networks.json"), "hns/v2/networks.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(nets) != 2 {
		t.Fatalf("%d networks", len(nets))
	}
	if nets[0].Type != snapshot.TypeNAT {
		t.Errorf("network without Type: %q, want NAT", nets[0].Type)
	}
	if nets[0].Subnets[0].Gateway != netip.MustParseAddr("172.20.64.1") {
		t.Errorf("V2 gateway from default route: %v", nets[0].Subnets[0].Gateway)
	}
	f := nets[1]
	if f.Type != snapshot.TypeOverlay || f.ID != "9A4F2C71-3B8E-4D6A-B1C5-7E2F9D0A6C38" || f.Flags != 8 {
		t.Errorf("flannel network: %+v", f)
	}
	if f.ManagementIP != netip.MustParseAddr("192.168.10.21") || f.ManagementIPField != "Policies[ProviderAddress]" {
		t.Errorf("ManagementIP %v from %q", f.ManagementIP, f.ManagementIPField)
	}
	if f.DrMAC != "00:15:5d:0a:7c:21" || f.AdapterName != "Ethernet0" || !f.HostRoute {
		t.Errorf("DrMAC %q adapter %q hostroute %v", f.DrMAC, f.AdapterName, f.HostRoute)
	}
	if len(f.RemoteSubnetRoutes) != 2 {
		t.Fatalf("RSRs: %+v (policy types must match case-insensitively)", f.RemoteSubnetRoutes)
	}
	r := f.RemoteSubnetRoutes[0]
	if r.DestinationPrefix != netip.MustParsePrefix("10.244.0.0/24") || r.ProviderAddress != netip.MustParseAddr("192.168.10.11") ||
		r.DrMAC != "c6:71:81:86:b2:77" || r.IsolationID != 4096 {
		t.Errorf("RSR: %+v", r)
	}
	if f.RemoteSubnetRoutes[1].DrMAC != "00:15:5d:0a:7c:22" {
		t.Errorf("dash MAC not normalized: %q", f.RemoteSubnetRoutes[1].DrMAC)
	}
	if f.Subnets[0].VSID != 4096 || f.Subnets[0].Gateway != netip.MustParseAddr("10.244.1.1") {
		t.Errorf("subnet: %+v", f.Subnets[0])
	}
}

func TestParseV2Endpoints(t *testing.T) {
	eps, err := ParseEndpoints(readTestdata(t, "v2-endpoints.json"), "hns/v2/endpoints.json")
	if err != nil {
		t.Fatal(err)
	}
	local, remote := eps[0], eps[1]
	if local.IsRemote || local.IP != netip.MustParseAddr("10.244.1.7") || local.PrefixLength != 24 || local.Gateway != netip.MustParseAddr("10.244.1.1") {
		t.Errorf("local: %+v", local)
	}
	if local.NetworkID != "9A4F2C71-3B8E-4D6A-B1C5-7E2F9D0A6C38" || local.MAC != "0e:2a:0a:f4:01:07" {
		t.Errorf("local network %q MAC %q", local.NetworkID, local.MAC)
	}
	if local.OutboundNAT == nil || len(local.OutboundNAT.Exceptions) != 3 || len(local.Routes) != 1 || !local.Routes[0].NeedEncap {
		t.Errorf("local policies: %+v %+v", local.OutboundNAT, local.Routes)
	}
	if local.DNSServers[0] != "10.96.0.10" || len(local.DNSSuffixes) != 3 {
		t.Errorf("DNS: %v %v", local.DNSServers, local.DNSSuffixes)
	}
	if !remote.IsRemote || remote.ProviderAddress != netip.MustParseAddr("192.168.10.22") {
		t.Errorf("remote: %+v", remote)
	}
}

func TestParseV1Shapes(t *testing.T) {
	// ConvertTo-Json prints a one-element array as a bare object, and a
	// one-element Subnets list as an object too.
	nets, err := ParseNetworks(readTestdata(t, "v1-single-object.json"), "f")
	if err != nil || len(nets) != 1 {
		t.Fatalf("single object: %v %v", nets, err)
	}
	if nets[0].Type != snapshot.TypeL2Bridge || nets[0].ManagementIP != netip.MustParseAddr("169.254.21.7") || len(nets[0].Subnets) != 1 {
		t.Errorf("single object: %+v", nets[0])
	}
	// HNSCall's envelope.
	nets, err = ParseNetworks(readTestdata(t, "v1-envelope.json"), "f")
	if err != nil || len(nets) != 1 || nets[0].Name != "cbr0" || nets[0].Type != snapshot.TypeL2Bridge {
		t.Fatalf("envelope: %+v %v", nets, err)
	}
	// UTF-16LE with BOM, CRLF, lower-case keys, numbers as strings.
	doc := "[\r\n  {\r\n    \"id\":  \"x\",\r\n    \"name\":  \"vxlan0\",\r\n    \"type\":  \"Overlay\",\r\n    \"managementip\":  \"10.0.0.4\",\r\n    \"Policies\":  [ { \"Type\": \"RemoteSubnetRoute\", \"IsolationId\": \"4096\", \"DestinationPrefix\": \"10.244.9.0/24\", \"ProviderAddress\": \"10.0.0.9\", \"DistributedRouterMacAddress\": \"0E-2A-00-00-00-09\" } ]\r\n  }\r\n]\r\n"
	nets, err = ParseNetworks(utf16LE(doc), "f")
	if err != nil || len(nets) != 1 {
		t.Fatalf("utf-16: %v %v", nets, err)
	}
	n := nets[0]
	if n.Name != "vxlan0" || n.ManagementIP != netip.MustParseAddr("10.0.0.4") || n.RemoteSubnetRoutes[0].IsolationID != 4096 || n.RemoteSubnetRoutes[0].DrMAC != "0e:2a:00:00:00:09" {
		t.Errorf("utf-16 network: %+v %+v", n, n.RemoteSubnetRoutes)
	}
}

func TestParseErrorsNameThePosition(t *testing.T) {
	_, err := ParseNetworks([]byte("[\n  {\"Name\": \"x\",\n   \"Type\" \"Overlay\"}\n]"), "f")
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("syntax error: %v", err)
	}
	_, err = ParseNetworks([]byte(`[{"Name": "x"`), "f")
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated: %v", err)
	}
	_, err = ParseNetworks([]byte(`[] []`), "f")
	if err == nil {
		t.Error("trailing data accepted")
	}
	// Wrong types are not errors: the field is just unknown.
	nets, err := ParseNetworks([]byte(`[{"Name": 5, "ManagementIP": {"x": 1}, "Subnets": "nope", "Policies": [1, "a", null]}]`), "f")
	if err != nil || len(nets) != 1 || nets[0].ManagementIP.IsValid() {
		t.Errorf("odd types: %+v %v", nets, err)
	}
	if nets, err := ParseNetworks([]byte("  \n"), "f"); err != nil || len(nets) != 0 {
		t.Errorf("empty file: %v %v", nets, err)
	}
}

func TestNormalizeMAC(t *testing.T) {
	for in, want := range map[string]string{
		"00-15-5D-64-51-0E": "00:15:5d:64:51:0e",
		"66-a5-cc-c1-86-97": "66:a5:cc:c1:86:97",
		"c6:71:81:86:b2:77": "c6:71:81:86:b2:77",
		"0E2A64F4CE43":      "0e:2a:64:f4:ce:43",
		"0e2a.64f4.ce43":    "0e:2a:64:f4:ce:43",
		"not-a-mac":         "not-a-mac",
		"":                  "",
	} {
		if got := snapshot.NormalizeMAC(in); got != want {
			t.Errorf("NormalizeMAC(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParsePolicyLists(t *testing.T) {
	doc := `[{"ID":"11111111-2222-3333-4444-555555555555","State":2,"IsApplied":false,
	  "References":["/endpoints/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"],
	  "Policies":[{"Type":"ELB","SourceVIP":"10.244.1.2","VIPs":["10.96.0.10"],"ExternalPort":53,"InternalPort":53,"Protocol":17,"IsDSR":true,"ILB":false}]}]`
	lbs, err := ParsePolicyLists([]byte(doc), "hns/v1/policylists.json")
	if err != nil || len(lbs) != 1 {
		t.Fatalf("%v %v", lbs, err)
	}
	lb := lbs[0]
	if lb.State != 2 || lb.Flags&1 == 0 || lb.EndpointIDs.At(0) != "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE" || lb.PortMappings[0].Protocol != 17 || lb.FrontendVIPs[0] != "10.96.0.10" {
		t.Errorf("policy list: %+v", lb)
	}
}

func TestParseKubeProxyCmdline(t *testing.T) {
	cfg, err := ParseKubeProxyCmdline([]byte(`"C:\Program Files\kube\kube-proxy.exe" --network-name Calico --source-vip=10.244.1.2 --enable-dsr --feature-gates="WinDSR=true,WinOverlay=true" --cluster-cidr 10.244.0.0/16`), "cmd")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NetworkName != "Calico" || cfg.SourceVIP != "10.244.1.2" || !cfg.EnableDSR || cfg.ClusterCIDR != "10.244.0.0/16" || cfg.Flags["feature-gates"] != "WinDSR=true,WinOverlay=true" {
		t.Errorf("%+v", cfg)
	}
}

// A load balancer list read from a stream, its backends' bytes looked up
// in the table, holds the backends the whole-file path does, in the same
// table order: HNS's upper-case IDs, and the others it normalizes.
func TestStreamedBackendsMatchWhole(t *testing.T) {
	doc := []byte(`[
	{"ID":"L1","HostComputeEndpoints":["AAAA-1","bbbb-2","{CCCC-3}"," DDDD-4 ","AAAA-1","E-5,F-6","","S-7","\u0041-8"]},
	{"ID":"L2","HostComputeEndpoints":["bbbb-2","BBBB-2","F-6","G-9"],"hostcomputeendpoints":["H-10"]},
	{"ID":"l3","hostComputeEndpoints":["I-11","A-8"]},
	{"ID":"{L4}","HostComputeEndpoints":"J-12, K-13"}]`)
	want, err := ParseLoadBalancers(doc, "lb.json")
	if err != nil {
		t.Fatal(err)
	}
	var ids snapshot.EndpointIDTable
	got, err := parseEachReaderWith(bytes.NewReader(doc), func(o obj, i int) *snapshot.LoadBalancer {
		return loadBalancerWith(o, snapshot.Ref{File: "lb.json", Index: i}, &ids, &lbSlab{})
	}, streamOptions[snapshot.LoadBalancer]{raw: []string{"ID", "HostComputeEndpoints"}})
	if err != nil {
		t.Fatal(err)
	}
	backends := func(lbs []*snapshot.LoadBalancer) (out [][]string, table []string) {
		for _, lb := range lbs {
			var l []string
			for _, id := range lb.EndpointIDs.All() {
				l = append(l, id)
			}
			out = append(out, l)
		}
		tb := lbs[0].EndpointIDs.Table()
		for i := range tb.Len() {
			table = append(table, tb.At(i))
		}
		return out, table
	}
	if len(got) != len(want) {
		t.Fatalf("%d load balancers streamed, %d whole", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID {
			t.Errorf("load balancer %d: streamed ID %q, whole-file %q", i, got[i].ID, want[i].ID)
		}
	}
	w, wt := backends(want)
	g, gt := backends(got)
	if !reflect.DeepEqual(g, w) || !reflect.DeepEqual(gt, wt) {
		t.Errorf("streamed backends %q, table %q\nwhole-file %q, table %q", g, gt, w, wt)
	}
	if len(w[0]) != 9 || w[0][1] != "BBBB-2" || w[0][2] != "CCCC-3" || w[0][8] != "A-8" || len(w[2]) != 2 {
		t.Errorf("whole-file backends %q", w)
	}
}

// Endpoints read from a stream, their IDs and MACs kept from the reader's
// bytes, are the ones the whole-file path builds, in every spelling.
func TestStreamedEndpointIDsMatchWhole(t *testing.T) {
	doc := []byte(`[
	{"ID":"AAAA-1","MacAddress":"00-15-5D-64-51-0E","IpConfigurations":[{"IpAddress":"10.128.0.2"}]},
	{"ID":"bbbb-2","MacAddress":"c6:71:81:86:b2:77","IpConfigurations":[{"IpAddress":"fd00::2"},{"IpAddress":"10.128.0.3/24"}]},
	{"ID":"{CCCC-3}","MacAddress":" 00-15-5d-64-51-0f ","IpConfigurations":[{"IpAddress":"010.1.1.1"},{"IpAddress":" 10.1.1.2 "}]},
	{"ID":" DDDD-4 ","MacAddress":"0015.5d64.5110"},
	{"Id":"EEEE-5","MacAddress":"00155D645111"},
	{"ID":"\u0046-6","MacAddress":"00-15-5\u0044-64-51-12"},
	{"ID":"S-7","MacAddress":"not a MAC"},
	{"ID":"","MacAddress":""},
	{"ID":12,"MacAddress":17},
	{"MacAddress":"00-15-5D-64-51-G0"}]`)
	want, err := ParseEndpoints(doc, "ep.json")
	if err != nil {
		t.Fatal(err)
	}
	var slab endpointSlab
	got, err := parseEachReaderWith(bytes.NewReader(doc), func(o obj, i int) *snapshot.Endpoint {
		return endpointWith(o, snapshot.Ref{File: "ep.json", Index: i}, &slab)
	}, streamOptions[snapshot.Endpoint]{raw: []string{"ID", "MacAddress"}, rawIn: endpointRawIn})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d endpoints streamed, %d whole", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].MAC != want[i].MAC || got[i].IP != want[i].IP || got[i].IPv6 != want[i].IPv6 {
			t.Errorf("endpoint %d: streamed %q %q %v %v, whole-file %q %q %v %v", i, got[i].ID, got[i].MAC, got[i].IP, got[i].IPv6,
				want[i].ID, want[i].MAC, want[i].IP, want[i].IPv6)
		}
	}
	if want[1].ID != "BBBB-2" || want[2].ID != "CCCC-3" || want[1].MAC != "c6:71:81:86:b2:77" || want[0].MAC != "00:15:5d:64:51:0e" ||
		want[1].IP.String() != "10.128.0.3" || want[2].IP.String() != "10.1.1.2" {
		t.Errorf("whole-file endpoints %q %q, %q %q", want[0].ID, want[0].MAC, want[1].ID, want[1].MAC)
	}
}
