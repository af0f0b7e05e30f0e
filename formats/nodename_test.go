package formats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// Where the cloud names the Kubernetes Node and Windows names the host
// otherwise (EKS: ip-10-0-1-5.ec2.internal and EC2AMAZ-…), kube-proxy's
// --hostname-override names the Node: the node name is the override when
// the bundle's name is no Node and the override is one, and only then.
func TestNodeNameFromHostnameOverride(t *testing.T) {
	load := func(override string, adapters bool) *snapshot.Snapshot {
		dir := t.TempDir()
		files := map[string]string{
			"manifest.json": `{"format":"diag-bundle","version":1,"node":"EC2AMAZ-4B1Q2RS","os":"windows"}`,
			"k8s/nodes.json": `{"kind":"NodeList","items":[{"metadata":{"name":"ip-10-0-1-5.ec2.internal","labels":{"kubernetes.io/os":"windows"}},
				"status":{"addresses":[{"type":"InternalIP","address":"10.0.1.5"}]}},
				{"metadata":{"name":"ip-10-0-1-6.ec2.internal","labels":{"kubernetes.io/os":"windows"}},
				"status":{"addresses":[{"type":"InternalIP","address":"10.0.1.6"}]}}]}`,
			"config/kube-proxy/cmdline.txt": `C:\k\kube-proxy.exe --hostname-override=` + override + ` --network-name=vpcbr`,
		}
		if adapters {
			files["host/adapters.json"] = `[{"Name":"Ethernet 3","MacAddress":"02-1A-2B-3C-4D-5E","MtuSize":9001,"Status":"Up","IPAddresses":[{"IPAddress":"10.0.1.5","PrefixLength":24}]}]`
		}
		for name, data := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return loadPath(t, dir)
	}
	s := load("ip-10-0-1-5.ec2.internal", false)
	if s.NodeName() != "ip-10-0-1-5.ec2.internal" || !strings.Contains(s.Facts.Name.Source, "--hostname-override") || s.SelfKubeNode() == nil {
		t.Errorf("override naming a Node: %q from %q, self %v", s.NodeName(), s.Facts.Name.Source, s.SelfKubeNode())
	}
	if s := load("some-other-name", false); s.NodeName() != "EC2AMAZ-4B1Q2RS" {
		t.Errorf("override naming no Node: %q from %q", s.NodeName(), s.Facts.Name.Source)
	}
	// The host holds the address of ip-10-0-1-5; an override copied from
	// ip-10-0-1-6 does not make it that node (HOST-04 reports the override).
	if s := load("ip-10-0-1-6.ec2.internal", true); s.NodeName() != "ip-10-0-1-5.ec2.internal" || !strings.Contains(s.Facts.Name.Source, "InternalIP 10.0.1.5 is on host adapter Ethernet 3") {
		t.Errorf("address against a wrong override: %q from %q", s.NodeName(), s.Facts.Name.Source)
	}
}
