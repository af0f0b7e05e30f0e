package analyzers

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/gen"
	"github.com/wincni/diag/snapshot"
)

func writeClusterNode(tb testing.TB, dir string, nodes, index int) string {
	return writeClusterNodeVFP(tb, dir, nodes, index, 0)
}

// writeClusterNodeVFP also writes vfpctrl dumps of vfpPorts local endpoints.
func writeClusterNodeVFP(tb testing.TB, dir string, nodes, index, vfpPorts int) string {
	tb.Helper()
	d := filepath.Join(dir, fmt.Sprintf("node-%d", index))
	if err := gen.WriteClusterNode(d, gen.ClusterNode{Nodes: nodes, Index: index, VFPPorts: vfpPorts}); err != nil {
		tb.Fatal(err)
	}
	return d
}

// The generated node is healthy: at scale, the rules must stay silent.
func TestGeneratedClusterNodeIsHealthy(t *testing.T) {
	dir := t.TempDir()
	var snaps []*snapshot.Snapshot
	for i := range 3 {
		snaps = append(snaps, formatstest.Load(t, writeClusterNodeVFP(t, dir, 40, i, 5)))
	}
	s := snaps[0]
	if len(s.Networks) != 1 || len(s.Networks[0].RemoteSubnetRoutes) != 39 || len(s.LoadBalancers) != 201 || len(s.KubeNodes) != 40 || len(s.VFPPorts) != 5 || s.VFPPorts[0].EndpointID == "" {
		t.Fatalf("generated sizes: %d networks, %d routes, %d load balancers, %d nodes", len(s.Networks), len(s.Networks[0].RemoteSubnetRoutes), len(s.LoadBalancers), len(s.KubeNodes))
	}
	res := Run(snaps[:1], Selection{})
	for _, f := range res.Findings {
		if f.Severity >= finding.Warn {
			t.Errorf("%s %s: %s", f.Severity, f.ID, f.Summary)
		}
	}
	for _, sk := range res.Skipped {
		t.Errorf("skipped %s: %s", sk.ID, sk.Reason)
	}
	// Across three nodes the cross-node rules hold too (peers missing from
	// the input are not faults).
	for _, f := range Run(snaps, Selection{}).Findings {
		if f.Severity >= finding.Warn {
			t.Errorf("cluster: %s %s: %s", f.Severity, f.ID, f.Summary)
		}
	}
}

// scaleNodes is the cluster size of the scale benchmarks (the issue's
// 1,000-node cluster); DIAG_SCALE_NODES overrides it.
func scaleNodes() int {
	if v := os.Getenv("DIAG_SCALE_NODES"); v != "" {
		var n int
		fmt.Sscan(v, &n)
		if n > 1 {
			return n
		}
	}
	return 1000
}

// BenchmarkScaleDecode only decodes the node's JSON into the model;
// BenchmarkScaleAnalyze decodes and runs every rule. Run side by side:
//
//	go test -run '^$' -bench 'Scale(Decode|Analyze)$' -benchmem ./analyzers
func BenchmarkScaleDecode(b *testing.B) {
	dir := writeClusterNode(b, b.TempDir(), scaleNodes(), 1)
	for b.Loop() {
		formatstest.Load(b, dir)
	}
}

func BenchmarkScaleAnalyze(b *testing.B) {
	dir := writeClusterNode(b, b.TempDir(), scaleNodes(), 1)
	for b.Loop() {
		s := formatstest.Load(b, dir)
		if res := Run([]*snapshot.Snapshot{s}, Selection{}); len(res.Findings) != 0 {
			b.Fatalf("healthy node: %v", summaries(res.Findings))
		}
	}
}

// BenchmarkScaleCluster runs the cross-node analysis of K already decoded
// bundles of one cluster, K = 10, 25, 50: the time per bundle should stay flat.
func BenchmarkScaleCluster(b *testing.B) {
	n := scaleNodes()
	dir := b.TempDir()
	var all []*snapshot.Snapshot
	for i := range 50 {
		all = append(all, formatstest.Load(b, writeClusterNode(b, dir, n, i)))
	}
	runtime.GC()
	for _, k := range []int{10, 25, 50} {
		b.Run(fmt.Sprintf("bundles=%d", k), func(b *testing.B) {
			for b.Loop() {
				Run(all[:k], Selection{})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(k)/1e6, "ms/bundle")
		})
	}
}

// BenchmarkScaleOVL02Firing runs OVL-02 on the node with half of its
// RemoteSubnetRoutes gone: one finding per peer left without a route, each
// showing the network's routes.
func BenchmarkScaleOVL02Firing(b *testing.B) {
	s := formatstest.Load(b, writeClusterNode(b, b.TempDir(), scaleNodes(), 1))
	n := s.Networks[0]
	n.RemoteSubnetRoutes = n.RemoteSubnetRoutes[:len(n.RemoteSubnetRoutes)/2]
	sel := Selection{Only: []string{"OVL-02"}}
	for b.Loop() {
		if res := RunNode(s, sel); len(res.Findings) < scaleNodes()/2-1 {
			b.Fatalf("%d findings, want one per peer without a route", len(res.Findings))
		}
	}
}
