package capture

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"net/netip"
	"testing"
	"time"
)

// Flow.AppendJSON writes the bytes encoding/json writes for a flow, over
// random flows and the edges: no addresses, IPv6 with a zone, no ports,
// words needing escapes, local offsets, and years encoding/json refuses.
func TestFlowJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	addrs := []netip.Addr{{}, netip.MustParseAddr("10.244.1.5"), netip.MustParseAddr("fd00::5"), netip.MustParseAddr("fe80::1%eth\"0"), netip.MustParseAddr("::ffff:10.0.0.1")}
	words := []string{"", "tcp", "udp", "ip", "syn-sent", "a<b>&c", "quote\"d", "tab\there", "naïve", "\x01"}
	zones := []*time.Location{time.UTC, time.FixedZone("x", 5*3600+30*60), time.FixedZone("lmt", -(4*3600 + 56*60 + 2)), time.FixedZone("far", 25*3600)}
	times := []time.Time{{}, time.Unix(1700000000, 123456789), time.Unix(1700000000, 0), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i := 0; i < 5000; i++ {
		fl := &Flow{
			Packets: rng.Int63(), Bytes: rng.Int63n(1 << 40), VNI: rng.Uint32(),
			Proto: words[rng.Intn(len(words))], State: words[rng.Intn(len(words))],
			Src: addrs[rng.Intn(len(addrs))], Dst: addrs[rng.Intn(len(addrs))],
			TunnelSrc: addrs[rng.Intn(len(addrs))], TunnelDst: addrs[rng.Intn(len(addrs))],
			SrcPort: uint16(rng.Intn(3) * rng.Intn(65536)), DstPort: uint16(rng.Intn(3) * rng.Intn(65536)),
			First: times[rng.Intn(len(times))].In(zones[rng.Intn(len(zones))]),
			Last:  times[rng.Intn(len(times))].In(zones[rng.Intn(len(zones))]),
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		wantErr := enc.Encode(fl)
		got, err := fl.AppendJSON(nil)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("flow %+v: error %v, encoding/json's %v", fl, err, wantErr)
		}
		if err == nil && string(got) != string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("flow %+v:\n got %s\nwant %s", fl, got, want.Bytes())
		}
	}
}
