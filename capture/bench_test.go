package capture

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/wincni/diag/gen"
)

const benchPackets = 500000

var (
	benchOnce sync.Once
	benchPath string
)

// TestMain removes the benchmarks' capture (420 MB) when they are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchPath != "" {
		os.RemoveAll(filepath.Dir(benchPath))
	}
	os.Exit(code)
}

// benchCapture writes one capture for both benchmarks, so that they read
// the same bytes from the page cache.
func benchCapture(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "diag-capture-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchPath = filepath.Join(dir, "bench.pcap")
		f, _ := os.Create(benchPath)
		w := bufio.NewWriterSize(f, 1<<20)
		if err := gen.WriteBenchCapture(w, benchPackets, 2000); err != nil {
			b.Fatal(err)
		}
		w.Flush()
		f.Close()
	})
	return benchPath
}

// BenchmarkRawRead is the I/O limit: pcapgo reading every packet, no decode.
func BenchmarkRawRead(b *testing.B) {
	path := benchCapture(b)
	for b.Loop() {
		f, _ := os.Open(path)
		r, err := pcapgo.NewReader(bufio.NewReaderSize(f, 1<<20))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, _, err := r.ZeroCopyReadPacketData()
			if err == io.EOF {
				break
			}
			n++
		}
		f.Close()
		if n != benchPackets {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchPackets), "ns/packet")
}

// BenchmarkAnalyze is the whole analysis: decode, tunnels, flows, every
// finding.
func BenchmarkAnalyze(b *testing.B) {
	benchAnalyze(b, benchCapture(b), func(r *Report) bool { return r.VXLANPackets == benchPackets })
}

// benchAnalyze times the whole analysis of the benchmark's packets in the
// file at path; ok judges each run's report. The file's size is reported
// beside the time a packet.
func benchAnalyze(b *testing.B, path string, ok func(*Report) bool) {
	b.ReportAllocs()
	for b.Loop() {
		a := NewAnalyzer(Options{ExpectedVNI: 4096})
		if err := a.ReadFile(path); err != nil {
			b.Fatal(err)
		}
		if r := a.Finish("x"); !ok(r) {
			b.Fatal(r.VXLANPackets, r.Notes)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchPackets), "ns/packet")
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "MB-file")
	}
}
