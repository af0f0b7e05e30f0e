//go:build linux

package capture

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// openMapped opens the capture at path, which is large enough to be mapped.
func openMapped(t *testing.T, path string) *Source {
	t.Helper()
	src, err := OpenLimits(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !src.isMapped() {
		t.Fatal("not mapped")
	}
	return src
}

// readMappedCut maps the capture at path, cuts the file to cut bytes and
// reads it, with a pager or without: the packets read and the source
// (closed, for its notes).
func readMappedCut(t *testing.T, path string, cut int64, pager bool) (int64, *Source) {
	t.Helper()
	src := openMapped(t, path)
	if err := os.Truncate(path, cut); err != nil {
		t.Fatal(err)
	}
	if pager {
		src.blocks.startPager()
	}
	got, err := NewAnalyzer(Options{}).readSerial(src)
	src.blocks.stopPager()
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	return got, src
}

// notesButCut are src's notes but the one that the file was cut while it
// was read, which reading the cut file cannot say.
func notesButCut(src *Source) []string {
	var out []string
	for _, n := range src.Notes() {
		if !strings.Contains(n, "the file was cut while it was read") {
			out = append(out, n)
		}
	}
	return out
}

// readCut reads the capture at path as a file is read, not mapped: the
// packets and notes a mapped reader of the same file cut under it must
// report.
func readCut(t *testing.T, path string) (int64, []string) {
	t.Helper()
	read, err := OpenLimits(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if read.blocks != nil {
		read.blocks.unmap()
	}
	n, err := NewAnalyzer(Options{}).readSerial(read)
	read.Close()
	if err != nil {
		t.Fatal(err)
	}
	return n, read.Notes()
}

// recordOffsets are the offsets of a little-endian pcap's records.
func recordOffsets(data []byte) []int64 {
	var recs []int64
	for off := int64(24); off+16 <= int64(len(data)); off += 16 + int64(binary.LittleEndian.Uint32(data[off+8:])) {
		recs = append(recs, off)
	}
	return recs
}
