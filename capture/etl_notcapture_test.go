package capture

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/capture/etl"
	"github.com/wincni/diag/capture/etl/etltest"
)

// An ETL file of another provider (an HNS or WPR trace handed over by
// mistake) is bad input naming its providers, for decode and convert; the
// same events under PktMon's GUID decode.
func TestETLOfOtherProviderIsBadInput(t *testing.T) {
	var buf bytes.Buffer
	w, err := etltest.NewWriter(&buf, etltest.Options{}) // plain buffers: the GUIDs lie in the file as they are
	if err != nil {
		t.Fatal(err)
	}
	w.Component(etltest.Component{ID: 4, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 5e1d"})
	for i := 0; i < 5; i++ {
		w.Packet(etltest.Packet{At: time.Duration(i) * time.Millisecond, GroupID: uint64(i + 1), Type: 1, Component: 4, Data: make([]byte, 60)})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pkt := buf.Bytes()
	other := bytes.ReplaceAll(pkt, etl.PktMonProvider[:], []byte("\x11\x11\x11\x11\x22\x22\x33\x33\x44\x44\x55\x55\x55\x55\x55\x55"))
	for _, c := range []struct {
		name string
		b    []byte
		bad  bool
	}{{"pktmon", pkt, false}, {"other", other, true}} {
		src, err := NewSource(bytes.NewReader(c.b), "trace.etl")
		if err != nil {
			t.Fatal(err)
		}
		err = NewAnalyzer(Options{}).ReadSource(src, "trace.etl")
		_, cerr := ConvertETL(bytes.NewReader(c.b), "trace.etl", io.Discard, "test")
		if !c.bad {
			if err != nil || cerr != nil {
				t.Errorf("%s: decode %v, convert %v", c.name, err, cerr)
			}
			continue
		}
		for _, e := range []error{err, cerr} {
			var ie *InputError
			if !errors.As(e, &ie) || !errors.Is(e, etl.ErrNotACapture) {
				t.Errorf("%s: %v (decode %v, convert %v), not bad input saying it holds no packet events", c.name, e, err, cerr)
				continue
			}
			if want := "trace.etl: this ETL holds no pktmon or netsh packet events (its providers: {11111111-2222-3333-4444-555555555555}: 6 events)"; e.Error() != want {
				t.Errorf("%s: %q, want %q", c.name, e, want)
			}
		}
	}
}

// An ETL file cut inside its first 80 bytes is told cut short, not "not
// a pcap or pcapng file".
func TestETLCutInHeaderIsBadInput(t *testing.T) {
	var buf bytes.Buffer
	w, err := etltest.NewWriter(&buf, etltest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{8, 30, etl.SniffLen - 1} {
		_, err := NewSource(bytes.NewReader(buf.Bytes()[:n]), "cut.etl")
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "cut.etl: an ETL file cut short") {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
}
