package formats

import (
	"path/filepath"
	"testing"

	"github.com/wincni/diag/gen"
)

// pasteBench writes one node's Get-HnsEndpoint output of an N-node overlay
// cluster as Format-List text and as JSON (gen.WriteEndpointPaste).
func pasteBench(b *testing.B, nodes int) string {
	dir := b.TempDir()
	if err := gen.WriteEndpointPaste(dir, gen.EndpointPaste{Nodes: nodes}); err != nil {
		b.Fatal(err)
	}
	return dir
}

func benchLoadFile(b *testing.B, path string, want int) {
	b.ReportAllocs()
	for b.Loop() {
		if s := loadPath(b, path); len(s.Endpoints) != want {
			b.Fatalf("%d endpoints, want %d", len(s.Endpoints), want)
		}
	}
}

// BenchmarkLoadPasteList and BenchmarkLoadPasteJSON read the same 6,000
// endpoints (a 200-node cluster), as Format-List text and as JSON.
func BenchmarkLoadPasteList(b *testing.B) {
	benchLoadFile(b, filepath.Join(pasteBench(b, benchPasteNodes), gen.PasteListFile), benchPasteNodes*30)
}

func BenchmarkLoadPasteJSON(b *testing.B) {
	benchLoadFile(b, filepath.Join(pasteBench(b, benchPasteNodes), gen.PasteJSONFile), benchPasteNodes*30)
}

var benchPasteNodes = 1000
