package formats

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wincni/diag/gen"
	"github.com/wincni/diag/snapshot"
)

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
