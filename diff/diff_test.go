package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/formats/formatstest"
)

const healthy = "../analyzers/testdata/scenarios/calico-healthy"

const calicoID = "FAD80830-616C-4BC2-8758-BA64AEA8F627"

// find returns the changes of a kind with the given action.
func find(r Result, kind string, a Action) []Change {
	var out []Change
	for _, c := range r.Changes {
		if c.Kind == kind && c.Change == a {
			out = append(out, c)
		}
	}
	return out
}

func TestIdenticalInputsHaveNoChanges(t *testing.T) {
	for _, p := range []string{healthy, seedBroken, "../testdata/collectlogs/seed-broken"} {
		r := Compare(formatstest.Load(t, p), formatstest.Load(t, formatstest.CopyBundle(t, p)))
		if len(r.Changes) != 0 || len(r.Notes) != 0 || r.Changes == nil || r.Notes == nil {
			t.Errorf("%s against itself: %+v", p, r)
		}
	}
}

// recreateCalico does what an HNS restart does: the network comes back
// with a new ID, and of the endpoints only the remote ones are back (the
// pods' vNICs are not recreated until the pods are).
func recreateCalico(t *testing.T, dir, newID string) {
	formatstest.EditJSON(t, dir, "hns/v1/networks.json", func(ns []map[string]any) []map[string]any {
		for _, n := range ns {
			if n["Name"] == "Calico" {
				n["ID"] = newID
			}
		}
		return ns
	})
	formatstest.EditJSON(t, dir, "hns/v1/endpoints.json", func(es []map[string]any) []map[string]any {
		var kept []map[string]any
		for _, e := range es {
			if e["IsRemoteEndpoint"] != true {
				continue
			}
			e["VirtualNetwork"] = newID
			kept = append(kept, e)
		}
		return kept
	})
}

func TestHNSRestartIsOneRecreatedNetwork(t *testing.T) {
	after := formatstest.CopyBundle(t, healthy)
	const newID = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"
	recreateCalico(t, after, newID)
	r := Compare(formatstest.Load(t, healthy), formatstest.Load(t, after))
	rec := find(r, KindNetwork, Recreated)
	if len(rec) != 1 || rec[0].Name != "Calico" || rec[0].Old != calicoID || rec[0].New != newID {
		t.Fatalf("recreated: %+v\nall: %+v", rec, r.Changes)
	}
	if a, d := find(r, KindNetwork, Added), find(r, KindNetwork, Removed); len(a)+len(d) != 0 {
		t.Errorf("the recreated network is also added %v / removed %v", a, d)
	}
	gone := find(r, KindEndpoint, Removed)
	if len(gone) != 1 || gone[0].Name != "100.244.206.67" || gone[0].Parent != "network Calico" || gone[0].Detail != "local" {
		t.Errorf("removed endpoints: %+v", gone)
	}
}

func TestLostRemoteSubnetRoutes(t *testing.T) {
	after := formatstest.CopyBundle(t, healthy)
	formatstest.EditJSON(t, after, "hns/v1/networks.json", func(ns []map[string]any) []map[string]any {
		for _, n := range ns {
			if n["Name"] == "Calico" {
				n["Policies"] = []any{map[string]any{"Type": "HostRoute"}}
			}
		}
		return ns
	})
	r := Compare(formatstest.Load(t, healthy), formatstest.Load(t, after))
	lost := find(r, KindRemoteSubnetRoute, Removed)
	if len(lost) != 1 || lost[0].Name != "100.244.49.64/26" || lost[0].Parent != "network Calico" || !strings.Contains(lost[0].Detail, "10.20.30.10") {
		t.Errorf("lost routes: %+v", r.Changes)
	}
	// And back, with the peer moved to another VTEP.
	moved := formatstest.CopyBundle(t, healthy)
	formatstest.EditJSON(t, moved, "hns/v1/networks.json", func(ns []map[string]any) []map[string]any {
		for _, n := range ns {
			for _, p := range asMaps(n["Policies"]) {
				if p["Type"] == "RemoteSubnetRoute" {
					p["ProviderAddress"] = "10.20.30.12"
				}
			}
		}
		return ns
	})
	r = Compare(formatstest.Load(t, healthy), formatstest.Load(t, moved))
	if ch := find(r, KindRemoteSubnetRoute, Changed); len(ch) != 1 || ch[0].Field != "ProviderAddress" || ch[0].Old != "10.20.30.10" || ch[0].New != "10.20.30.12" {
		t.Errorf("moved route: %+v", r.Changes)
	}
}

func asMaps(v any) []map[string]any {
	var out []map[string]any
	list, _ := v.([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func TestNetworkFieldsLoadBalancersConfigAndOS(t *testing.T) {
	after := formatstest.CopyBundle(t, healthy)
	formatstest.EditJSON(t, after, "hns/v1/networks.json", func(ns []map[string]any) []map[string]any {
		for _, n := range ns {
			if n["Name"] == "Calico" {
				n["DrMacAddress"] = "00-15-5D-00-00-01"
				for _, s := range asMaps(n["Subnets"]) {
					s["AddressPrefix"] = "100.244.206.128/26"
				}
			}
		}
		return ns
	})
	formatstest.EditJSON(t, after, "hns/v1/policylists.json", func(ls []map[string]any) []map[string]any {
		for _, p := range asMaps(ls[0]["Policies"]) {
			p["SourceVIP"] = "100.244.206.70"
		}
		ls[0]["References"] = []any{"/endpoints/9B8A7C6D-5E4F-4A3B-9C2D-1E0F2A3B4C5D"}
		return ls[:1] // only the first, edited, stays
	})
	write(t, after, "config/kube-proxy/cmdline.txt", `C:\k\kube-proxy.exe --v=4 --proxy-mode=kernelspace --hostname-override=winw1 --kubeconfig=C:\k\config --network-name=Calico --source-vip=100.244.206.70 --feature-gates=WinOverlay=true --enable-dsr=true --cluster-cidr=100.244.0.0/16`)
	write(t, after, "host/os.json", `{"Hostname":"winw1","ProductName":"Windows Server 2019 Datacenter","CurrentBuild":17763,"UBR":2183,"Hotfixes":[{"HotFixID":"KB5005030"},{"HotFixID":"KB5006672"}]}`)
	r := Compare(formatstest.Load(t, healthy), formatstest.Load(t, after))
	got := map[string]Change{}
	for _, c := range r.Changes {
		got[c.Kind+" "+string(c.Change)+" "+c.Field+" "+c.Name] = c
	}
	for key, want := range map[string][2]string{
		"network changed DR MAC Calico":                        {"00:15:5d:b9:70:84", "00:15:5d:00:00:01"},
		"network changed Subnets Calico":                       {"100.244.206.64/26", "100.244.206.128/26"},
		"kubeProxy changed --source-vip kube-proxy":            {"100.244.206.66", "100.244.206.70"},
		"kubeProxy changed --enable-dsr kube-proxy":            {"false", "true"},
		"os changed UBR Windows Server 2019 Datacenter":        {"2114", "2183"},
		"loadBalancer changed SourceVIP 10.96.0.10 UDP 53->53": {"100.244.206.66", "100.244.206.70"},
		"loadBalancer changed Backends 10.96.0.10 UDP 53->53":  {"100.244.49.66, 100.244.49.67", "100.244.49.66"},
		"hotfix removed  KB5005112":                            {"", ""},
		"hotfix added  KB5006672":                              {"", ""},
	} {
		c, ok := got[key]
		if !ok || c.Old != want[0] || c.New != want[1] {
			t.Errorf("%s: got %+v (present %v), want %q → %q", key, c, ok, want[0], want[1])
		}
	}
	if n := len(find(r, KindLoadBalancer, Removed)); n != 2 {
		t.Errorf("%d load balancers removed, want 2: %+v", n, r.Changes)
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An input one side lacks is one note, not every object removed.
func TestMissingInputIsANote(t *testing.T) {
	before := formatstest.CopyBundle(t, healthy)
	os.Remove(filepath.Join(before, "hns", "v1", "policylists.json"))
	os.RemoveAll(filepath.Join(before, "vfp"))
	r := Compare(formatstest.Load(t, before), formatstest.Load(t, healthy))
	if len(r.Changes) != 0 {
		t.Errorf("changes: %+v", r.Changes)
	}
	want := []string{
		"OLD has no HNS load balancers (hns/v2/loadbalancers.json, hns/v1/policylists.json): not compared",
		"OLD has no VFP ports and rules (vfp/, vfpctrl output): not compared",
	}
	if strings.Join(r.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s", strings.Join(r.Notes, "\n"))
	}
	if r := Compare(formatstest.Load(t, healthy), formatstest.Load(t, before)); len(r.Notes) != 2 || !strings.HasPrefix(r.Notes[0], "NEW has no HNS load balancers") {
		t.Errorf("notes the other way: %v", r.Notes)
	}
}

// A diag bundle of the seed node against its collectlogs output: the same
// node, so the HNS objects agree; only what the formats show differently
// may differ (host routes' on-link next hops, an adapter ipconfig omits).
func TestCollectlogsAgainstBundle(t *testing.T) {
	r := Compare(formatstest.Load(t, "../testdata/collectlogs/seed-broken"), formatstest.Load(t, seedBroken))
	for _, c := range r.Changes {
		switch c.Kind {
		case KindNetwork, KindEndpoint, KindRemoteSubnetRoute, KindLoadBalancer, KindVFPRule, KindVFPPort, KindVFPLayer:
			t.Errorf("HNS/VFP change across formats of one state: %+v", c)
		}
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "OLD has no kube-proxy flags") {
		t.Errorf("notes: %v", r.Notes)
	}
}

func TestSeedFixKeepsTheNetworkAsRecreated(t *testing.T) {
	r := Compare(formatstest.Load(t, seedBroken), formatstest.Load(t, seedFixed))
	rec := find(r, KindNetwork, Recreated)
	if len(rec) != 1 || rec[0].Name != "Calico" {
		t.Fatalf("recreated: %+v", r.Changes)
	}
	var mgmt *Change
	for i, c := range r.Changes {
		if c.Kind == KindNetwork && c.Field == "ManagementIP" {
			mgmt = &r.Changes[i]
		}
	}
	if mgmt == nil || mgmt.Old != "10.0.2.15" || mgmt.New != "10.20.30.11" {
		t.Errorf("ManagementIP change: %+v", mgmt)
	}
}
