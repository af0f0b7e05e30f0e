package capture

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// fakeRunner records the commands and answers from a script.
type fakeRunner struct {
	calls   []string
	answers map[string]string // command prefix → output
	fail    map[string]bool
}

func (f *fakeRunner) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	cmd := name + " " + strings.Join(args, " ")
	f.calls = append(f.calls, cmd)
	for prefix, out := range f.answers {
		if strings.HasPrefix(cmd, prefix) {
			if f.fail[prefix] {
				return []byte(out), errors.New("exit status 1")
			}
			return []byte(out), nil
		}
	}
	return nil, nil
}

func TestPktmonCapture(t *testing.T) {
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters."}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: 10 * time.Millisecond, VXLANPorts: []uint16{4789}, TempDir: `C:\tmp`}, `C:\out\capture.pcapng`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pktmon filter list",
		"pktmon filter add diag-vxlan-4789 -t UDP -p 4789",
		"pktmon start --capture --pkt-size 0 --file-name",
		"pktmon stop",
		"pktmon etl2pcap",
		"pktmon filter remove",
	}
	if len(r.calls) != len(want) {
		t.Fatalf("calls: %q", r.calls)
	}
	for i, w := range want {
		if !strings.HasPrefix(r.calls[i], w) {
			t.Errorf("call %d = %q, want %q...", i, r.calls[i], w)
		}
	}
	if !strings.Contains(r.calls[4], `C:\out\capture.pcapng`) {
		t.Errorf("conversion target: %q", r.calls[4])
	}
}

func TestPktmonRefusesForeignFilters(t *testing.T) {
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "Packet Filters:\n     # Name  Protocol  Port\n     - ----  --------  ----\n     1 dns   UDP       53\n"}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}}, "out.pcapng")
	if err == nil || !strings.Contains(err.Error(), "already has packet filters") {
		t.Fatalf("err = %v", err)
	}
	for _, c := range r.calls {
		if strings.HasPrefix(c, "pktmon filter remove") || strings.HasPrefix(c, "pktmon start") {
			t.Errorf("touched someone else's capture: %q", c)
		}
	}
}

func TestPktmonStartFailureCleansUp(t *testing.T) {
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters.", "pktmon start": "Access is denied."},
		fail: map[string]bool{"pktmon start": true}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}}, "out.pcapng")
	if err == nil || !strings.Contains(err.Error(), "Access is denied") {
		t.Fatalf("err = %v", err)
	}
	if last := r.calls[len(r.calls)-1]; last != "pktmon filter remove" {
		t.Errorf("filters left behind; last call %q", last)
	}
}
