package formats

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wincni/diag/gen"
	"github.com/wincni/diag/snapshot"
)

// FuzzVFPMatchesReference holds the VFP text reader to the reference
// (vfp_reference_test.go): the same ports, layers, rules and counters for
// any text, with and without a port named by the caller.
func FuzzVFPMatchesReference(f *testing.F) {
	fixtureSeeds(f, "collectlogs/*/ports.txt", "collectlogs/*/vfpOutput.txt", "bundles/*/vfp/*.txt")
	f.Add([]byte("Policy for port :\nRULE : x\nConditions:\n LAYER : y\nCommand list-rule succeeded!\n"))
	f.Add([]byte("Policy for port :\r\n\r\n{01234567-89ab-cdef-0123-456789abcdef}\r\nLAYER : L\r\n  GROUP : G\r\n    RULE : R\r\n      Type : a; Type : b;; x : y\r\n      Conditions:\r\n        <none>\r\n        Destination IP : 10.0.0.0-10.0.0.255\r\n      Encap Destination(s):\r\n        { DIP=1 }\r\nCommand list-rule succeeded\r\n"))
	f.Add([]byte("Get-port-counter for port: 01234567-89ab-cdef-0123-456789abcdef\nDirection - OUT\n  Dropped : 5\nCommand get-port-counter succeeded!\n  Port name : 01234567-89ab-cdef-0123-456789abcdef\n  Port is Disabled\n"))
	f.Add([]byte("ITEM LIST\n  Port State\n    Enabled : TRUE\n    Blocked : FALSE\n    Other :\nCommand  get-port-state succeeded!\n Command x-y succeeded!!\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, port := range []string{"", "{01234567-89AB-cdef-0123-456789abcdef}"} {
			gotInto := map[string]*snapshot.VFPPort{}
			gotPorts := ParseVFPDump(string(data), "f", port, gotInto)
			want := map[string]*snapshot.VFPPort{}
			wantPorts := refParseVFPDump(string(data), "f", port, want)
			if !reflect.DeepEqual(gotPorts, wantPorts) || !reflect.DeepEqual(gotInto, want) {
				t.Fatalf("port %q: the reader and the reference differ on %q", port, data)
			}
		}
	})
}

// BenchmarkParseVFPDump reads one port's dump of a 1,000-node overlay
// cluster (999 encap rules), as the monitor's VFP round reads 20 of them.
//
//	go test -run '^$' -bench ParseVFPDump -benchmem ./formats
func BenchmarkParseVFPDump(b *testing.B) {
	dir := b.TempDir()
	if err := gen.WriteClusterNode(dir, gen.ClusterNode{Nodes: 1000, LocalPods: 1, VFPPorts: 1}); err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "vfp", "port-*.txt"))
	if len(files) != 1 {
		b.Fatalf("port dumps: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ports := ParseVFPDump(text, "vfp/port.txt", "port", map[string]*snapshot.VFPPort{})
		if len(ports) != 1 || ports[0].RuleCount() < 999 {
			b.Fatalf("ports %d", len(ports))
		}
	}
}
