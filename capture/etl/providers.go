package etl

import (
	"errors"
	"fmt"
	"strings"
)

// maxProviders bounds the other providers a Reader names.
const maxProviders = 8

// providers counts the events of providers other than PktMon and
// NDIS-PacketCapture, to say what an ETL file handed over by mistake (an
// HNS or WPR trace) holds instead of packets.
type providers struct {
	ids   [maxProviders]guid
	n     [maxProviders]int64
	used  int
	other int64 // events of providers past the first maxProviders
}

func (p *providers) add(g guid) {
	for i := 0; i < p.used; i++ {
		if p.ids[i] == g {
			p.n[i]++
			return
		}
	}
	if p.used == maxProviders {
		p.other++
		return
	}
	p.ids[p.used], p.n[p.used] = g, 1
	p.used++
}

func (p *providers) String() string {
	var b strings.Builder
	for i := 0; i < p.used; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %d events", p.ids[i], p.n[i])
	}
	if p.other > 0 {
		fmt.Fprintf(&b, ", %d events of others", p.other)
	}
	return b.String()
}

// packetProvider says whether the file so far holds any event of
// Microsoft-Windows-PktMon or Microsoft-Windows-NDIS-PacketCapture.
func (r *Reader) packetProvider() bool {
	if r.stats.NDISEvents > 0 || len(r.stats.PktMonEvents) > 0 {
		return true
	}
	for _, n := range r.events {
		if n > 0 {
			return true
		}
	}
	return false
}

// ErrNotACapture is what NotACapture's error wraps.
var ErrNotACapture = errors.New("this ETL holds no pktmon or netsh packet events")

// NotACapture returns an error, once the whole file is read, when the
// file holds events but none of Microsoft-Windows-PktMon or
// Microsoft-Windows-NDIS-PacketCapture: it is another provider's trace,
// not a packet capture of no packets. It names the providers.
func (r *Reader) NotACapture() error {
	if !r.atEnd || r.stop != "" || r.stats.Events == 0 || r.packetProvider() {
		return nil
	}
	return fmt.Errorf("%w (its providers: %s)", ErrNotACapture, r.others.String())
}

// logFileCircular is EVENT_TRACE_FILE_MODE_CIRCULAR: the file wraps, and
// BuffersWritten counts the buffers overwritten too.
const logFileCircular = 0x2

// unnamedComponents says, for a file cut short, how many of the
// components packets were passed on from have no name: pktmon writes its
// rundown when it stops, at the end of the file.
func (r *Reader) unnamedComponents() string {
	if r.stats.NDISEvents > 0 {
		return ""
	}
	n := 0
	for id, c := range r.sum.byComponent {
		if c > 0 && r.comps[uint16(id)] == nil {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" %d components the packets crossed have no name: the component rundown pktmon writes when it stops, at the end of the file, is lost with it.", n)
}
