package capture

import (
	"bufio"
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/wincni/diag/capture/etl"
	"github.com/wincni/diag/capture/etl/etltest"
	"github.com/wincni/diag/gen"
)

var (
	benchETLOnce    sync.Once
	benchETLPath    string
	benchPcapngOnce sync.Once
	benchPcapngPath string
)

// benchPcapng writes the benchmark capture's packets as pcapng, the
// format etl2pcapng gives, beside it.
func benchPcapng(b *testing.B) string {
	benchPcapngOnce.Do(func() {
		benchPcapngPath = rewriteBenchCapture(b, "bench.pcapng", func(out io.Writer, next func() ([]byte, gopacket.CaptureInfo, bool)) error {
			w, err := newNgWriter(out, "eth0", LinkTypeEthernet, 0, "diag bench")
			if err != nil {
				return err
			}
			for data, ci, ok := next(); ok; data, ci, ok = next() {
				if err := w.WritePacket(ci.Timestamp, data, ci.Length); err != nil {
					return err
				}
			}
			return w.Flush()
		})
	})
	return benchPcapngPath
}

// BenchmarkAnalyzePcapng is BenchmarkAnalyze's analysis of the packets
// read from pcapng, what the ETL decode is held against.
func BenchmarkAnalyzePcapng(b *testing.B) {
	benchAnalyze(b, benchPcapng(b), func(r *Report) bool { return r.VXLANPackets == benchPackets })
}

// benchETL writes the benchmark capture's packets again as a pktmon ETL
// file (compressed buffers, two processors whose buffers interleave),
// beside it so that TestMain removes both.
func benchETL(b *testing.B) string {
	benchETLOnce.Do(func() {
		benchETLPath = rewriteBenchCapture(b, "bench.etl", func(out io.Writer, next func() ([]byte, gopacket.CaptureInfo, bool)) error {
			var w *etltest.Writer
			for i := 0; ; i++ {
				data, ci, ok := next()
				if !ok {
					break
				}
				if w == nil {
					var err error
					if w, err = etltest.NewWriter(out, etltest.Options{Start: ci.Timestamp, Compress: true, BufferSize: 1 << 20}); err != nil {
						return err
					}
					w.Component(etltest.Component{ID: 7, Type: 2, Name: "netvsc.sys", Description: "Microsoft Hyper-V Network Adapter"})
				}
				w.Packet(etltest.Packet{At: ci.Timestamp.Sub(w.Start()), Processor: (i / 64) % 2, GroupID: uint64(i + 1), Number: 1, Appearance: 1,
					Direction: 3, Type: 1, Component: 7, OriginalSize: ci.Length, Data: data})
			}
			return w.Close()
		})
	})
	return benchETLPath
}

// rewriteBenchCapture writes the benchmark capture's packets again, as
// write puts them (next gives them in order, false at the end), into the
// file name beside it so that TestMain removes both.
func rewriteBenchCapture(b *testing.B, name string, write func(out io.Writer, next func() ([]byte, gopacket.CaptureInfo, bool)) error) string {
	pcapPath := benchCapture(b)
	in, err := os.Open(pcapPath)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	r, err := pcapgo.NewReader(bufio.NewReaderSize(in, 1<<20))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(filepath.Dir(pcapPath), name)
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 1<<20)
	next := func() ([]byte, gopacket.CaptureInfo, bool) {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			return nil, ci, false
		}
		if err != nil {
			b.Fatal(err)
		}
		return data, ci, true
	}
	if err := write(bw, next); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkAnalyzeETL is BenchmarkAnalyze's analysis of the same packets
// read from a pktmon ETL file: buffers inflated, events put back in time
// order, the ETL summary (components, paths, drops) kept besides.
func BenchmarkAnalyzeETL(b *testing.B) {
	benchAnalyze(b, benchETL(b), func(r *Report) bool {
		return r.VXLANPackets == benchPackets && r.ETL[0].PacketEvents == benchPackets && (len(r.Notes) == 0 || r.ETL[0].Packets == benchPackets)
	})
}

// BenchmarkReadETL is the ETL reader alone (BenchmarkRawRead's
// counterpart): buffers inflated and merged in time order, no decode.
func BenchmarkReadETL(b *testing.B) {
	path := benchETL(b)
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := etl.NewReader(bufio.NewReaderSize(f, 1<<20), path, etl.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
		f.Close()
		if n != benchPackets {
			b.Fatal(n, r.Notes())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchPackets), "ns/packet")
}

// TestWriteLargeETL writes, into $DIAG_ETL_BENCH_DIR, the benchmark
// capture's generator's packets (1.3 million, about 1.1 GB) with random
// payloads (as real traffic, they do not compress) as big.etl (four
// processors' buffers interleaved) and big.pcapng: the files docs/etl.md
// times diag capture decode on. It is skipped without the variable.
func TestWriteLargeETL(t *testing.T) {
	dir := os.Getenv("DIAG_ETL_BENCH_DIR")
	if dir == "" {
		t.Skip("DIAG_ETL_BENCH_DIR is not set: the 1 GB comparison files are not written")
	}
	var pc bytes.Buffer
	const n = 1_300_000
	if err := gen.WriteBenchCapture(&pc, n, 2000); err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewReader(&pc)
	if err != nil {
		t.Fatal(err)
	}
	fe, err := os.Create(filepath.Join(dir, "big.etl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fe.Close()
	fn, err := os.Create(filepath.Join(dir, "big.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	defer fn.Close()
	be, bn := bufio.NewWriterSize(fe, 1<<20), bufio.NewWriterSize(fn, 1<<20)
	nw, err := newNgWriter(bn, "eth0", LinkTypeEthernet, 0, "diag test")
	if err != nil {
		t.Fatal(err)
	}
	var w *etltest.Writer
	rng := rand.New(rand.NewSource(1))
	for i := 0; ; i++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 120 {
			rng.Read(data[120:])
		}
		if w == nil {
			if w, err = etltest.NewWriter(be, etltest.Options{Start: ci.Timestamp, Compress: true, BufferSize: 1 << 20}); err != nil {
				t.Fatal(err)
			}
			w.Component(etltest.Component{ID: 7, Type: 2, Name: "netvsc.sys", Description: "Microsoft Hyper-V Network Adapter"})
		}
		w.Packet(etltest.Packet{At: ci.Timestamp.Sub(w.Start()), Processor: (i / 64) % 4, GroupID: uint64(i + 1), Direction: 3, Type: 1,
			Component: 7, OriginalSize: ci.Length, Data: data})
		if err := nw.WritePacket(ci.Timestamp, data, ci.Length); err != nil {
			t.Fatal(err)
		}
	}
	for _, err := range []error{w.Close(), nw.Flush(), be.Flush(), bn.Flush()} {
		if err != nil {
			t.Fatal(err)
		}
	}
}
