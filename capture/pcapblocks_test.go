package capture

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
)

// readAllBlocks reads a classic pcap with the block reader, with a small
// block so that records straddle blocks and some are larger than a block.
func readAllBlocks(data []byte, slab int) ([]Packet, error) {
	pb, err := newPcapBlocks(bytes.NewReader(data), "x")
	if err != nil {
		return nil, err
	}
	return readBlocks(pb, slab)
}

func readBlocks(pb *pcapBlocks, slab int) ([]Packet, error) {
	pb.maxPacket = maxPcapRecord // skip nothing pcapgo reads (limits_test.go tests the skipping)
	var out []Packet
	b := &batch{slab: make([]byte, 0, slab)}
	for {
		err := pb.fill(b)
		for _, p := range b.pkts {
			p.Data = append([]byte(nil), p.Data...)
			out = append(out, p)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func readAllPcapgo(data []byte) ([]Packet, error) {
	r, err := pcapgo.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []Packet
	for {
		d, ci, err := r.ReadPacketData()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, Packet{Data: d, Length: ci.Length, Time: ci.Timestamp, LinkType: LinkType(r.LinkType())})
	}
}

func samePackets(t *testing.T, name string, a, b []Packet) { samePacketsTime(t, name, a, b, true) }

// samePacketsTime compares packets; times only when asked (pcapgo's times
// overflow for a microsecond field of a million or more, which only fuzzed
// files have).
func samePacketsTime(t *testing.T, name string, a, b []Packet, times bool) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d packets from blocks, %d from pcapgo", name, len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i].Data, b[i].Data) || a[i].Length != b[i].Length || times && !a[i].Time.Equal(b[i].Time) || a[i].LinkType != b[i].LinkType {
			t.Fatalf("%s: packet %d differs: %d/%d bytes, length %d/%d, %v/%v, link %v/%v", name, i,
				len(a[i].Data), len(b[i].Data), a[i].Length, b[i].Length, a[i].Time, b[i].Time, a[i].LinkType, b[i].LinkType)
		}
	}
}

// The block reader gives exactly what pcapgo gives, on every classic pcap
// of the public captures and the generated ones, with blocks small enough
// that records cross them and outgrow them.
func TestPcapBlocksMatchPcapgo(t *testing.T) {
	files, _ := filepath.Glob("../../shared/captures/tcpdump-tests/*.pcap")
	more, _ := filepath.Glob("testdata/*.pcap")
	files = append(files, more...)
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !isPcapMagic([4]byte(data[:4])) {
			continue
		}
		want, werr := readAllPcapgo(data)
		for _, slab := range []int{64, 1500, 1 << 20} {
			got, gerr := readAllBlocks(data, slab)
			if (werr == nil) != (gerr == nil) {
				t.Errorf("%s (block %d): pcapgo error %v, blocks error %v", f, slab, werr, gerr)
			}
			samePackets(t, f, got, want)
		}
		n++
	}
	if n == 0 {
		t.Skip("no classic pcap files found")
	}
	t.Logf("%d files compared", n)
}

// A file cut in the middle of a record gives the records before the cut,
// then io.EOF, and says where the cut is, with any block size.
func TestPcapBlocksTruncated(t *testing.T) {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	w.WriteFileHeader(65535, 1)
	pkt := bytes.Repeat([]byte{0xab}, 100)
	for range 3 {
		w.WritePacket(gopacketCI(len(pkt)), pkt)
	}
	data := buf.Bytes()
	for _, slab := range []int{64, 1500, 1 << 20} {
		pb, _ := newPcapBlocks(bytes.NewReader(data[:len(data)-10]), "x")
		got, err := readBlocks(pb, slab)
		if len(got) != 2 || err != nil || pb.stop.kind != stopCut || pb.stop.packet != 3 || pb.stop.at != 24+2*116 || pb.stop.need != 116 || pb.stop.end != int64(len(data)-10) {
			t.Errorf("block %d: %d packets, error %v, stop %+v", slab, len(got), err, *pb.stop)
		}
	}
	if _, err := readAllBlocks(data[:20], 1<<20); err == nil {
		t.Error("a cut file header was accepted")
	}
}

func FuzzPcapBlocks(f *testing.F) {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	w.WriteFileHeader(65535, 1)
	w.WritePacket(gopacketCI(4), []byte{1, 2, 3, 4})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gerr := readAllBlocks(data, 64)
		want, werr := readAllPcapgo(data)
		if gerr == nil && (werr == nil || errors.Is(werr, io.ErrUnexpectedEOF)) && !hasHugeRecord(data, len(got)) {
			// pcapgo stops at a record cut short with the records
			// before it: the block reader gives the same.
			samePacketsTime(t, "fuzz", got, want, false)
		}
	})
}

// hasHugeRecord says whether the record after the first n of a classic
// pcap claims more than maxPcapRecord bytes: the block reader stops there
// as damaged, pcapgo tries to read it.
func hasHugeRecord(data []byte, n int) bool {
	pb, err := newPcapBlocks(bytes.NewReader(data), "x")
	if err != nil {
		return false
	}
	off := 24
	for i := 0; i <= n && off+16 <= len(data); i++ {
		incl := int(pb.u32(data[off+8:]))
		if incl > maxPcapRecord {
			return i == n
		}
		off += 16 + incl
	}
	return false
}

func gopacketCI(n int) gopacket.CaptureInfo {
	return gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, 123000), CaptureLength: n, Length: n}
}
