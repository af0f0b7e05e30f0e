package collectors

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wincni/diag/formats"
)

// linuxFake answers iproute2 from canned JSON.
type linuxFake struct{ failBridge bool }

func (l linuxFake) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	switch name + " " + strings.Join(args, " ") {
	case "ip -j -d link show":
		return []byte(`[{"ifindex":5,"ifname":"flannel.1","mtu":1450,"operstate":"UNKNOWN","address":"66:a5:cc:c1:86:97","linkinfo":{"info_kind":"vxlan","info_data":{"id":4096,"local":"10.20.30.10","port":4789,"dev":"eth1"}}}]`), nil
	case "ip -j addr show":
		return []byte(`[{"ifindex":3,"ifname":"eth1","addr_info":[{"family":"inet","local":"10.20.30.10","prefixlen":24}]}]`), nil
	case "ip -j route show":
		return []byte(`[{"dst":"100.244.206.64/26","gateway":"100.244.206.64","dev":"flannel.1","flags":["onlink"]}]`), nil
	case "ip -j neigh show":
		return []byte(`[{"dst":"100.244.206.64","dev":"flannel.1","lladdr":"00:15:5d:0a:f4:01","state":["PERMANENT"]}]`), nil
	case "bridge -j fdb show":
		if l.failBridge {
			return nil, fmt.Errorf("bridge: exec: not found")
		}
		return []byte(`[{"mac":"00:15:5d:0a:f4:01","ifname":"flannel.1","dst":"10.0.2.15","flags":[],"state":"permanent"}]`), nil
	}
	return nil, fmt.Errorf("%s: unexpected", name)
}

func linuxFS() fstest.MapFS {
	return fstest.MapFS{
		"etc/os-release":                    {Data: []byte("PRETTY_NAME=\"Ubuntu 24.04 LTS\"\nID=ubuntu\nVERSION_ID=\"24.04\"\n")},
		"proc/sys/kernel/osrelease":         {Data: []byte("6.8.0-45-generic\n")},
		"proc/sys/kernel/hostname":          {Data: []byte("linux-1\n")},
		"proc/1/cmdline":                    {Data: []byte("/sbin/init\x00")},
		"proc/812/cmdline":                  {Data: []byte("/usr/local/bin/kube-proxy\x00--config=/var/lib/kube-proxy/config.conf\x00--hostname-override=linux-1\x00")},
		"proc/self/cmdline":                 {Data: []byte("diag\x00")},
		"etc/cni/net.d/10-flannel.conflist": {Data: []byte(`{"name":"cbr0","cniVersion":"0.3.1","plugins":[{"type":"flannel","delegate":{"hairpinMode":true,"isDefaultGateway":true}},{"type":"portmap","capabilities":{"portMappings":true}}]}`)},
		"etc/kube-flannel/net-conf.json":    {Data: []byte(`{"Network":"100.244.0.0/16","Backend":{"Type":"vxlan","VNI":4096,"Port":4789}}`)},
		"run/flannel/subnet.env":            {Data: []byte("FLANNEL_NETWORK=100.244.0.0/16\nFLANNEL_SUBNET=100.244.49.65/26\n")},
		"var/log/containers/kube-flannel-ds-x_kube-flannel_kube-flannel-abc.log": {Data: []byte("2026-11-22T08:00:00Z stderr F I1122 vxlan_network.go:1 added subnet\n")},
	}
}

// The Linux collectors write the Linux side of the overlay in the layout
// the snapshot reads: the VXLAN route resolves through neighbour and FDB.
func TestLinuxCollectors(t *testing.T) {
	w, path := newTestWriter(t)
	e := &Env{Runner: linuxFake{}, FS: linuxFS(), NodeName: "linux-1"}
	if !Run(context.Background(), w, e, LinuxCollectors(), RunOptions{}) {
		t.Error("not complete")
	}
	b := closeAndVerify(t, w, path)
	for _, r := range b.Manifest.Collectors {
		want := "ok"
		if r.ID == "calico-config" {
			want = "skipped"
		}
		if r.Status != want {
			t.Errorf("%s: %s %s", r.ID, r.Status, r.Error)
		}
	}
	cmd, _ := b.ReadFile("config/kube-proxy/cmdline.txt")
	if !strings.HasPrefix(string(cmd), "/usr/local/bin/kube-proxy\n--config=") {
		t.Errorf("kube-proxy cmdline %q", cmd)
	}
	osj, _ := b.ReadFile("host/os.json")
	for _, want := range []string{`"ProductName": "Ubuntu 24.04 LTS"`, `"KernelVersion": "6.8.0-45-generic"`, `"Hostname": "linux-1"`} {
		if !strings.Contains(string(osj), want) {
			t.Errorf("os.json lacks %s:\n%s", want, osj)
		}
	}
	b.Manifest.OS = "linux"
	s, err := formats.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Linux == nil {
		t.Fatal("no Linux network state in the snapshot")
	}
	routes := s.Linux.VXLANRoutes()
	if len(routes) != 1 || routes[0].VTEP.String() != "10.0.2.15" {
		t.Errorf("VXLAN routes %+v", routes)
	}
	if s.Flannel == nil || s.Flannel.VNI != 4096 {
		t.Errorf("flannel net-conf %+v", s.Flannel)
	}
}

// One missing tool makes the collector partial, not failed.
func TestLinuxNetPartial(t *testing.T) {
	w, path := newTestWriter(t)
	e := &Env{Runner: linuxFake{failBridge: true}, FS: linuxFS()}
	Run(context.Background(), w, e, []Collector{LinuxCollectors()[0]}, RunOptions{})
	b := closeAndVerify(t, w, path)
	if r := result(t, b, "linux-net"); r.Status != "partial" || !strings.Contains(r.Error, "bridge") || len(r.Files) != 4 {
		t.Errorf("linux-net: %+v", r)
	}
}

func TestParsePortRanges(t *testing.T) {
	ex := ParseExcludedPortRanges("\nProtocol tcp Port Exclusion Ranges\n\nStart Port    End Port\n----------    --------\n      1080        1179\n     50000       50059     *\n\n* - Administered port exclusions.\n")
	if len(ex) != 2 || ex[0] != (PortRange{1080, 1179, false}) || ex[1] != (PortRange{50000, 50059, true}) {
		t.Errorf("excluded %+v", ex)
	}
	// German Windows: the labels are localized, the numbers are not.
	dyn := ParseDynamicPorts("Protokoll tcp Dynamischer Portbereich\n---------------------------------\nStartport       : 49152\nAnzahl Ports    : 16384\n")
	if dyn == nil || *dyn != (DynamicPorts{49152, 16384}) {
		t.Errorf("dynamic %+v", dyn)
	}
	if ParseDynamicPorts("garbage") != nil {
		t.Error("garbage parsed")
	}
}

func FuzzParsePortRanges(f *testing.F) {
	f.Add("Start Port    End Port\n      1080        1179\n 50000 50059 *\n")
	f.Add("Start Port      : 49152\nNumber of Ports : 16384\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, r := range ParseExcludedPortRanges(text) {
			if r.Start > r.End || r.End > 65535 {
				t.Errorf("range %+v", r)
			}
		}
		if d := ParseDynamicPorts(text); d != nil && (d.Start > 65535 || d.Count > 65536) {
			t.Errorf("dynamic %+v", d)
		}
	})
}

func TestVFPPortNames(t *testing.T) {
	names := VFPPortNames([]byte("ITEM LIST\n  Port name              : A1\n  Port Friendly name     : Container NIC 1\n  Port name : B2\n  Port name : A1\n"))
	if strings.Join(names, ",") != "A1,B2" {
		t.Errorf("names %v", names)
	}
}
