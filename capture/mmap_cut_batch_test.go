//go:build linux

package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// A capture cut at a random time while it is read is most often cut while
// a batch already framed is analyzed: the cut then goes through that
// batch. The packets are still those reading the cut file reports: the
// packet the cut went through is noted as cut short, not counted, and the
// packet whose bytes fault is not counted either. The cut is made from
// FlowsGrew, called in the middle of a batch, at a page's end a few
// records after the packet being analyzed.
func TestMappedCutWhileABatchIsAnalyzedReportsTheCutFilesPackets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flows.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	// One flow for the first 50 packets, then a new flow a packet: the
	// 8192nd flow comes with packet 8241, inside the 65th batch of 128.
	const first = 49
	for i := 0; i < 12000; i++ {
		flow := max(i-first, 0)
		frame := encap(vtepA, vtepB, 4789, 1, innerTCP(podA, podB, tcpSeg{sport: uint16(1000 + flow%60000), dport: uint16(80 + flow/60000), flags: "A", seq: uint32(i), id: uint16(i), payload: 900}))
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Microsecond), CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := recordOffsets(data)
	page := int64(os.Getpagesize())
	for _, ahead := range []int{5, 30} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cut := (recs[FlowsGrewEvery+first+ahead]/page + 1) * page
		src := openMapped(t, path)
		truncated := false
		a := NewAnalyzer(Options{FlowsGrew: func(n int) {
			if n == FlowsGrewEvery {
				truncated = os.Truncate(path, cut) == nil
			}
		}})
		got, err := a.readSerial(src)
		src.Close()
		if err != nil || !truncated {
			t.Fatalf("error %v, truncated %v", err, truncated)
		}
		gotNotes := notesButCut(src)
		want, wantNotes := readCut(t, path)
		if got != want || fmt.Sprint(gotNotes) != fmt.Sprint(wantNotes) {
			t.Errorf("cut at byte %d, %d records ahead of the packet analyzed: %d packets, notes %q; the cut file read: %d packets, notes %q", cut, ahead, got, gotNotes, want, wantNotes)
		}
	}
}
