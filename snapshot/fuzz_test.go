package snapshot

import (
	"os"
	"path/filepath"
	"testing"
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
		filepath.Join(seed, "config", "kube-proxy", "cmdline.txt"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseAdapters(data)
		ParseRoutes(data)
		ParseOS(data)
		if nodes, err := ParseKubeNodes(data); err == nil {
			for _, n := range nodes {
				n.FlannelBackend()
			}
		}
		ParseServices(data)
		ParseKubeProxyCmdline(data, "f")
		DecodeText(data)
	})
}
