//go:build linux

package capture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// bigCapture writes a classic pcap over mapMinSize: flows of varied sizes,
// a record over the packet limit in the middle, and cutShort bytes cut off
// its end.
func bigCapture(t *testing.T, cutShort int) string {
	t.Helper()
	return bigCaptureOf(t, cutShort, mapMinSize+3<<20)
}

// bigCaptureOf is bigCapture of at least size bytes.
func bigCaptureOf(t *testing.T, cutShort int, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	written := int64(24)
	for i := 0; written < size; i++ {
		frame := encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: uint16(1000 + i%300), dport: 80, flags: "A", seq: uint32(i), id: uint16(i), payload: i % 1400}))
		if i == 5000 {
			frame = append(frame, make([]byte, 70000)...) // over the 64 KiB default packet limit
		}
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Microsecond), CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
		written += 16 + int64(len(frame))
	}
	f.Close()
	if cutShort > 0 {
		os.Truncate(path, written-int64(cutShort))
	}
	return path
}

// A mapped capture gives the report a read one gives, packet for packet,
// in the serial and the pipelined reader and in ReadSource (the serial
// reader with its pager), whole or cut short.
func TestMappedMatchesRead(t *testing.T) {
	for _, cut := range []int{0, 100} {
		path := bigCapture(t, cut)
		report := func(mapped bool, how string) []byte {
			src, err := OpenLimits(path, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if src.isMapped() != mapped {
				if mapped {
					t.Fatalf("%s was not mapped", path)
				}
				src.blocks.unmap()
			}
			a := NewAnalyzer(Options{})
			if how == "source" {
				if err := a.ReadSource(src, path); err != nil {
					t.Fatal(err)
				}
			} else {
				read := a.readSerial
				if how == "pipelined" {
					read = a.readPipelined
				}
				if _, err := read(src); err != nil {
					t.Fatal(err)
				}
				a.limitNotes = append(a.limitNotes, src.Notes()...)
				a.res.Files = append(a.res.Files, FileSummary{Path: path, Format: src.Format, Packets: a.res.Packets, SkippedPackets: src.skips.packets})
			}
			out, _ := json.Marshal(a.Finish("x"))
			return out
		}
		want := report(false, "pipelined")
		for _, c := range []struct {
			mapped bool
			how    string
		}{{true, "pipelined"}, {true, "serial"}, {true, "source"}, {false, "serial"}, {false, "source"}} {
			if got := report(c.mapped, c.how); string(got) != string(want) {
				t.Errorf("cut %d, mapped %v, %s: the report differs from a read one (%d vs %d bytes)", cut, c.mapped, c.how, len(got), len(want))
			}
		}
	}
}

// A mapped capture cut while it is read (a capture still being written,
// or truncated) ends with the packets before the cut and a note, in the
// serial and the pipelined reader and with the pager ahead of the serial
// one: never a crash.
func TestMappedFileCutWhileRead(t *testing.T) {
	for _, how := range []string{"serial", "pipelined", "pager"} {
		path := bigCapture(t, 0)
		src, err := OpenLimits(path, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if !src.isMapped() {
			t.Fatal("not mapped")
		}
		if err := os.Truncate(path, 2<<20); err != nil {
			t.Fatal(err)
		}
		a := NewAnalyzer(Options{})
		read := a.readSerial
		switch how {
		case "pipelined":
			read = a.readPipelined
		case "pager":
			src.blocks.startPager()
		}
		n, err := read(src)
		src.blocks.stopPager()
		src.Close()
		a.limitNotes = append(a.limitNotes, src.Notes()...)
		r := a.Finish("x")
		if err != nil || n == 0 || r.VXLANPackets == 0 || !hasNote(r, "the file was cut while it was read") {
			t.Errorf("%s: %d packets, error %v, notes %q", how, n, err, r.Notes)
		}
	}
}

// A pager that never runs (no core for it) leaves the hand-back of the
// mapping to the reader once it lags by releaseLag: what is mapped behind
// the reader stays bounded.
func TestMappedReleaseWithoutPager(t *testing.T) {
	path := bigCaptureOf(t, 0, 2*releaseLag+pageAhead)
	src, err := OpenLimits(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	pb := src.blocks
	if pb.mapped == nil {
		t.Fatal("not mapped")
	}
	// A pager whose goroutine is never started.
	pb.pager = &pager{data: pb.mapped, freed: &pb.freed, wake: make(chan struct{}, 1), done: make(chan struct{})}
	b := &batch{}
	var most int64
	for {
		pb.release(b.mapEnd)
		most = max(most, b.mapEnd-pb.freed.Load())
		if err := pb.fill(b); err != nil {
			break
		}
	}
	if pb.freed.Load() == 0 || most > releaseLag+releaseChunk {
		t.Errorf("the reader freed the mapping up to %d; the most left mapped behind it was %d bytes, want at most %d", pb.freed.Load(), most, releaseLag+releaseChunk)
	}
}

// A mapped capture damaged at its first record reports no packet and says
// where, like a read one.
func TestMappedDamagedFirstRecord(t *testing.T) {
	path := bigCapture(t, 0)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The first record's captured length: more than any capture holds.
	if _, err := f.WriteAt([]byte{0xff, 0xff, 0xff, 0x7f}, 24+8); err != nil {
		t.Fatal(err)
	}
	f.Close()
	src, err := OpenLimits(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if !src.isMapped() {
		t.Fatal("not mapped")
	}
	a := NewAnalyzer(Options{})
	if err := a.ReadSource(src, path); err != nil {
		t.Fatal(err)
	}
	r := a.Finish("x")
	if r.Packets != 0 || !hasNote(r, "damaged or corrupt at packet 1") {
		t.Errorf("%d packets, notes %q", r.Packets, r.Notes)
	}
}
