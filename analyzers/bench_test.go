package analyzers

import (
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/formats"
	"github.com/wincni/diag/snapshot"
)

// BenchmarkSeed measures the whole offline path on the seed bundle: open,
// parse into the model, run every rule.
func BenchmarkSeed(b *testing.B) {
	for b.Loop() {
		bd, err := bundle.Open("../testdata/bundles/seed-broken", bundle.DefaultLimits)
		if err != nil {
			b.Fatal(err)
		}
		s, err := formats.Load(bd)
		if err != nil {
			b.Fatal(err)
		}
		bd.Close()
		if res := Run([]*snapshot.Snapshot{s}, Selection{}); len(res.Findings) != 1 {
			b.Fatal("want one finding")
		}
	}
}
