package capture

import (
	"bytes"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"
)

// TestNgWriterReadsBack: what diag capture start writes reads back, with
// its link type, lengths and nanosecond times, through gopacket's reader
// and diag's own.
func TestNgWriterReadsBack(t *testing.T) {
	var buf bytes.Buffer
	w, err := newNgWriter(&buf, "eth0", LinkTypeEthernet, 65536, "diag test")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 25, 13, 0, 0, 123456789, time.UTC)
	frames := [][]byte{bytes.Repeat([]byte{1}, 61), bytes.Repeat([]byte{2}, 64), {3}}
	for i, f := range frames {
		if err := w.WritePacket(t0.Add(time.Duration(i)*time.Millisecond), f, len(f)+i); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewNgReader(bytes.NewReader(buf.Bytes()), pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, f) || ci.Length != len(f)+i || !ci.Timestamp.Equal(t0.Add(time.Duration(i)*time.Millisecond)) || r.LinkType() != 1 {
			t.Errorf("packet %d: %d bytes, length %d, time %v, link %v", i, len(data), ci.Length, ci.Timestamp, r.LinkType())
		}
	}
	src, err := NewSource(bytes.NewReader(buf.Bytes()), "w.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	var p Packet
	for i := range frames {
		if err := src.Next(&p); err != nil || p.Length != len(frames[i])+i || p.LinkType != LinkTypeEthernet || !p.Time.Equal(t0.Add(time.Duration(i)*time.Millisecond)) {
			t.Errorf("diag's reader, packet %d: %+v %v", i, p, err)
		}
	}
}
