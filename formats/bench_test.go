package formats

import (
	"path/filepath"
	"testing"

	"github.com/wincni/diag/gen"
	"github.com/wincni/diag/snapshot"
)

func TestBusyNodeCollectlogs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "busy")
	if err := gen.WriteCollectlogs(dir, gen.DefaultBusyNode); err != nil {
		t.Fatal(err)
	}
	s := loadPath(t, dir)
	rules := 0
	for _, p := range s.VFPPorts {
		rules += p.RuleCount()
	}
	if s.Format != snapshot.FormatCollectlogs || len(s.Endpoints) != 300 || len(s.VFPPorts) != 100 || rules != 4000 ||
		len(s.Networks[0].RemoteSubnetRoutes) != 49 || s.Facts.Name.Value != "busy-1" {
		t.Errorf("format %q: %d endpoints, %d ports, %d rules, %d routes, name %q", s.Format, len(s.Endpoints), len(s.VFPPorts), rules,
			len(s.Networks[0].RemoteSubnetRoutes), s.Facts.Name.Value)
	}
	linked := 0
	for _, p := range s.VFPPorts {
		if p.EndpointID != "" {
			linked++
		}
	}
	if linked != 100 {
		t.Errorf("%d ports linked to endpoints", linked)
	}
}

// BenchmarkLoadBusyCollectlogs: a busy node's collectlogs folder (300
// endpoints, 100 VFP ports with 40 rules each, UTF-16LE) to the snapshot.
func BenchmarkLoadBusyCollectlogs(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "busy")
	if err := gen.WriteCollectlogs(dir, gen.DefaultBusyNode); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		loadPath(b, dir)
	}
}
