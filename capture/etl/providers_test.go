package etl

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// The cut between buffers is told with the counts; a circular file,
// whose header counts the buffers it overwrote, and a whole file, are
// not noted.
func TestBuffersWrittenNote(t *testing.T) {
	full := fixture(t, true)
	starts := bufferStarts(full)
	n := len(starts)
	b := withBuffersWritten(full, n)
	r, _ := readAll(t, b[:starts[n-1]], Limits{})
	want := fmt.Sprintf("fixture.etl: the file ends after %d of the %d buffers its logfile header says were written: it was cut short between two buffers", n-1, n)
	if notes := strings.Join(r.Notes(), "\n"); !strings.Contains(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if err := r.NotACapture(); err != nil {
		t.Errorf("a pktmon file cut short: %v", err)
	}
	circular := append([]byte(nil), b[:starts[n-1]]...)
	binary.LittleEndian.PutUint32(circular[bufferHeaderSize+systemHeaderSize+0x20:], logFileCircular)
	if r, _ := readAll(t, circular, Limits{}); len(r.Notes()) > 0 {
		t.Errorf("a circular file: notes %q", r.Notes())
	}
	if r, _ := readAll(t, withBuffersWritten(full, n-1), Limits{}); len(r.Notes()) > 0 {
		t.Errorf("a file of more buffers than its header says: notes %q", r.Notes())
	}
}

// The providers of an ETL without packet events are named, the first
// eight with their counts.
func TestProvidersNamed(t *testing.T) {
	var p providers
	for i := 0; i < 10; i++ {
		for k := 0; k <= i; k++ {
			p.add(guid{byte(i)})
		}
	}
	s := p.String()
	if !strings.HasPrefix(s, "{00000000-0000-0000-0000-000000000000}: 1 events, {00000001-") || !strings.HasSuffix(s, ": 8 events, 19 events of others") {
		t.Errorf("%q", s)
	}
}
