package etl

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/capture/etl/etltest"
)

// A netsh trace capture: single-event packets both ways on adapter 7, a
// raw-IP one on adapter 12, one logged truncated, a packet in two pieces
// and an 802.11 metadata event (counted, not decoded).
func TestNDISCapture(t *testing.T) {
	var buf bytes.Buffer
	w, err := etltest.NewWriter(&buf, etltest.Options{Start: fixtureStart})
	if err != nil {
		t.Fatal(err)
	}
	whole := uint64(etltest.NDISPacketStart | etltest.NDISPacketEnd)
	ipv4 := frame(74, 1)
	ipv4[16], ipv4[17] = 0, 60 // IPv4 total length 60: 74 bytes with Ethernet
	w.NDISPacket(etltest.NDISPacket{At: 0, MiniportIfIndex: 7, LowerIfIndex: 7, Keyword: whole | etltest.NDISEthernet | etltest.NDISSendPath, Data: ipv4})
	w.NDISPacket(etltest.NDISPacket{At: time.Millisecond, MiniportIfIndex: 7, LowerIfIndex: 7, Keyword: whole | etltest.NDISEthernet | etltest.NDISReceivePath, Data: ipv4})
	w.NDISPacket(etltest.NDISPacket{At: 2 * time.Millisecond, LowerIfIndex: 12, Keyword: whole | etltest.NDISWirelessWAN | etltest.NDISSendPath, Data: ipv4[14:]})
	w.NDISPacket(etltest.NDISPacket{At: 3 * time.Millisecond, LowerIfIndex: 7, Keyword: whole | etltest.NDISEthernet | etltest.NDISTruncated | etltest.NDISReceivePath, Data: ipv4[:40]})
	w.NDISPacket(etltest.NDISPacket{At: 4 * time.Millisecond, LowerIfIndex: 7, Keyword: etltest.NDISPacketStart | etltest.NDISEthernet, Data: ipv4[:30]})
	w.NDISPacket(etltest.NDISPacket{At: 4 * time.Millisecond, LowerIfIndex: 7, Keyword: etltest.NDISPacketEnd | etltest.NDISEthernet, Data: ipv4[30:]})
	w.NDISPacket(etltest.NDISPacket{At: 5 * time.Millisecond, ID: 1002, Data: make([]byte, 20)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, pkts := readAll(t, buf.Bytes(), Limits{})
	if len(pkts) != 4 {
		t.Fatalf("%d packets, want the 4 whole ones", len(pkts))
	}
	want := []struct {
		ifIndex    uint32
		typ        PacketType
		dir        Direction
		logged, on int
	}{{7, PacketEthernet, 2, 74, 74}, {7, PacketEthernet, 1, 74, 74}, {12, PacketIP, 2, 60, 60}, {7, PacketEthernet, 1, 40, 74}}
	for i, p := range pkts {
		w := want[i]
		if !p.NDIS || p.IfIndex != w.ifIndex || p.Type != w.typ || p.Direction != w.dir || len(p.Data) != w.logged || p.OriginalSize != w.on || p.Dropped {
			t.Errorf("packet %d = %+v, want %+v", i, p, w)
		}
		if !p.Time().Equal(fixtureStart.Add(time.Duration(i) * time.Millisecond)) {
			t.Errorf("packet %d at %v", i, p.Time())
		}
	}
	st, sum := r.Stats(), r.Summary()
	if st.NDISEvents != 7 || st.NDISPieces != 2 || sum.PacketEvents != 4 || sum.Packets != 4 || sum.ByComponent[7] != 3 || sum.ByComponent[12] != 1 {
		t.Errorf("stats %+v, summary %+v", st, sum)
	}
	if notes := strings.Join(r.Notes(), "\n"); !strings.Contains(notes, "2 NDIS packet capture events hold a piece of a packet") {
		t.Errorf("notes %q", notes)
	}
}
