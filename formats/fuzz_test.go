package formats

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wincni/diag/snapshot"
)

func addSeeds(f *testing.F, files ...string) {
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// checkParsers runs every HNS parser over data; none may panic.
func checkParsers(data []byte) {
	ParseNetworks(data, "f")
	ParseEndpoints(data, "f")
	ParseLoadBalancers(data, "f")
	ParsePolicyLists(data, "f")
	ParseNamespaces(data, "f")
}

func FuzzParseHNSv1(f *testing.F) {
	seed := filepath.Join("..", "testdata", "bundles", "seed-broken", "hns", "v1")
	addSeeds(f, filepath.Join(seed, "networks.json"), filepath.Join(seed, "endpoints.json"),
		"testdata/v1-single-object.json", "testdata/v1-envelope.json")
	f.Add([]byte(`[{"Policies":[{"Type":"ELB","VIPs":"10.0.0.1","Protocol":"TCP"}],"References":["/endpoints/x"]}]`))
	f.Fuzz(func(t *testing.T, data []byte) { checkParsers(data) })
}

func FuzzParseHNSv2(f *testing.F) {
	addSeeds(f, "testdata/v2-networks.json", "testdata/v2-endpoints.json")
	f.Add([]byte(`[{"HostComputeEndpoints":["a"],"PortMappings":[{"Protocol":6,"InternalPort":"80"}],"Resources":[{"Type":"Endpoint","Data":{"ID":"x"}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) { checkParsers(data) })
}

func FuzzParseHostAndKube(f *testing.F) {
	seed := filepath.Join("..", "testdata", "bundles", "seed-broken")
	addSeeds(f, filepath.Join(seed, "host", "adapters.json"), filepath.Join(seed, "host", "routes.json"),
		filepath.Join(seed, "host", "os.json"), filepath.Join(seed, "k8s", "nodes.json"), filepath.Join(seed, "k8s", "services.json"),
		filepath.Join(seed, "config", "kube-proxy", "cmdline.txt"),
		filepath.Join(seed, "host", "firewall.json"), filepath.Join(seed, "host", "portranges.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if fw, err := ParseFirewall(data, "f"); err == nil && fw != nil {
			for _, r := range fw.Rules {
				r.CoversUDPPort(4789)
				r.AppliesTo("Public")
			}
		}
		if pr, err := ParsePortRanges(data, "f"); err == nil && pr != nil {
			for _, proto := range []string{"tcp", "udp"} {
				if free, total, _ := pr.FreeBlocks(proto); free > total || total > 1024 {
					t.Errorf("%s: %d free of %d blocks", proto, free, total)
				}
			}
		}
		if v, err := ParseHNSGlobals(data); err == nil && v != nil {
			_ = (&snapshot.Snapshot{HNSVersion: v}).Feature(snapshot.FeatureDSR)
		}
		ParseAdapters(data)
		ParseRoutes(data)
		ParseOS(data)
		if nodes, err := ParseKubeNodes(data); err == nil {
			for _, n := range nodes {
				n.FlannelBackend()
			}
		}
		ParseServices(data)
		if slices, err := ParseEndpointSlices(data); err == nil {
			snapshot.ReadyEndpoints(slices)
			snapshot.ReadyAddresses(slices)
		}
		ParseKubeProxyCmdline(data, "f")
		DecodeText(data)
	})
}

func fixtureSeeds(f *testing.F, globs ...string) {
	for _, g := range globs {
		files, _ := filepath.Glob(filepath.Join("..", "testdata", g))
		addSeeds(f, files...)
	}
}

// FuzzLooseArtifact covers content detection and every parser it can reach:
// JSON (HNS, Kubernetes, iproute2), Format-List text and vfpctrl text.
func FuzzLooseArtifact(f *testing.F) {
	fixtureSeeds(f, "text/*.txt", "collectlogs/*/*.txt", "bundles/seed-linux-controlplane/linux/*.json")
	pastes, _ := filepath.Glob(filepath.Join("testdata", "pastes", "*.txt"))
	addSeeds(f, pastes...)
	f.Add([]byte("Name : x\nPolicies : {@{a=@{b={c, d...}}; e=System.Object[]}}\n"))
	f.Add([]byte("> Name : x\n> Policies : {@{a=@{b={c, d\n"))
	f.Add([]byte("PS C:\\> Get-HnsNetwork | ft\nName Type\n---- ----\nnat  nat\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var set objectSet
		set.addArtifact(data, "f")
	})
}

func FuzzVFPText(f *testing.F) {
	fixtureSeeds(f, "collectlogs/flannel-2024/ports.txt", "collectlogs/flannel-2024/vfpOutput.txt")
	f.Add([]byte("Policy for port :\nRULE : x\nConditions:\n LAYER : y\nCommand list-rule succeeded!\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ports := ParseVFPDump(string(data), "f", "", map[string]*snapshot.VFPPort{})
		for _, p := range ports {
			p.RuleCount()
		}
		ParseVFPDump(string(data), "f", "port", map[string]*snapshot.VFPPort{})
	})
}

func FuzzWindowsText(f *testing.F) {
	fixtureSeeds(f, "collectlogs/*/ip.txt", "collectlogs/*/routes.txt", "collectlogs/*/mtu.txt", "collectlogs/*/winver.txt", "collectlogs/*/hnsdiag.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		text := string(data)
		adapters, _ := ParseIPConfig(text)
		ApplyNetshInterfaces(text, adapters)
		ApplyRouteInterfaceList(text, adapters)
		ParseRoutePrint(text, adapters)
		ParseWinver(text)
		ParseHNSDiag(text)
	})
}
