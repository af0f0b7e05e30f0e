package capture

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeRunner records the commands and answers from a script; etl2pcap
// writes pcap to the file after --out.
type fakeRunner struct {
	calls   []string
	answers map[string]string // command prefix → output
	fail    map[string]bool
	hang    map[string]bool // until the context ends
	pcap    []byte
}

func (f *fakeRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := name + " " + strings.Join(args, " ")
	f.calls = append(f.calls, cmd)
	if len(args) == 4 && args[0] == "etl2pcap" && f.pcap != nil {
		if err := os.WriteFile(args[3], f.pcap, 0o600); err != nil {
			return nil, err
		}
	}
	for prefix, out := range f.answers {
		if strings.HasPrefix(cmd, prefix) {
			if f.fail[prefix] {
				return []byte(out), errors.New("exit status 1")
			}
			return []byte(out), nil
		}
	}
	for prefix := range f.hang {
		if strings.HasPrefix(cmd, prefix) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
	}
	return nil, nil
}

// fourPackets is a pcapng of four Ethernet frames, as etl2pcap writes one.
func fourPackets(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := newNgWriter(&b, "pktmon", LinkTypeEthernet, 65535, "pktmon test")
	if err != nil {
		t.Fatal(err)
	}
	frame := make([]byte, 64)
	for i := range 4 {
		frame[0] = byte(i)
		if err := w.WritePacket(time.Unix(1700000000+int64(i), 0), frame, len(frame)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The command sequence; the pcapng pktmon converted comes through out,
// its packets counted; the ETL and the conversion go to a folder of their
// own (not a fixed name), removed after.
func TestPktmonCapture(t *testing.T) {
	pcap := fourPackets(t)
	dir := t.TempDir()
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters."}, pcap: pcap}
	var out bytes.Buffer
	stats, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: 10 * time.Millisecond, VXLANPorts: []uint16{4789}, TempDir: dir}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Packets != 4 || !bytes.Equal(out.Bytes(), pcap) {
		t.Errorf("%d packets, %d bytes out; want 4 packets, the %d bytes pktmon wrote", stats.Packets, out.Len(), len(pcap))
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
	if strings.Contains(r.calls[2], "diag-capture.etl") || !strings.Contains(r.calls[2], dir) {
		t.Errorf("ETL file: %q, want a fresh name in %s", r.calls[2], dir)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
}

// With ETLFile, pktmon's own capture is written there and kept.
func TestPktmonKeepsETL(t *testing.T) {
	etl := filepath.Join(t.TempDir(), "diag.etl")
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters."}, pcap: fourPackets(t)}
	if _, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}, TempDir: t.TempDir(), ETLFile: etl}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(r.calls[2], "--file-name "+etl) || !strings.Contains(r.calls[4], "etl2pcap "+etl+" --out") {
		t.Errorf("calls: %q", r.calls)
	}
}

// What etl2pcap leaves is checked: nothing, or not a capture, is an error
// (not "wrote it, 0 packets").
func TestPktmonConversionChecked(t *testing.T) {
	for name, c := range map[string]struct {
		pcap []byte
		want string
	}{
		"nothing":       {nil, "no pcapng written"},
		"not a capture": {[]byte("The file is not a valid ETL file.\r\n"), "not a capture"},
	} {
		t.Run(name, func(t *testing.T) {
			r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters."}, pcap: c.pcap}
			_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}, TempDir: t.TempDir()}, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// pktmon refusing a user who is not an Administrator is a permission
// error (diag says "run as Administrator", exit 2), named once.
func TestPktmonAccessDenied(t *testing.T) {
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "Access is denied.\r\n"}, fail: map[string]bool{"pktmon filter list": true}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}}, &bytes.Buffer{})
	if !errors.Is(err, os.ErrPermission) || err.Error() != "pktmon filter list: Access is denied." {
		t.Errorf("err = %v", err)
	}
}

// Any other failure of pktmon is the node's tool failing, not diag: the
// command line exits 2 (BadInput) with the line pktmon printed.
func TestPktmonFailsOnTheNode(t *testing.T) {
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "The parameter is incorrect.\r\n"}, fail: map[string]bool{"pktmon filter list": true}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}}, &bytes.Buffer{})
	var bad interface{ BadInput() bool }
	if !errors.As(err, &bad) || !bad.BadInput() || !strings.Contains(err.Error(), "pktmon filter list") || !strings.Contains(err.Error(), "The parameter is incorrect.") {
		t.Errorf("err = %v, want the node's pktmon failing (BadInput) with its line", err)
	}
	if errors.Is(err, os.ErrPermission) {
		t.Errorf("err = %v taken for a refusal", err)
	}
}

// A pktmon command that hangs is ended: a 10 ms capture does not wait for
// it for ever; stop and etl2pcap, which run after an interruption too,
// are bounded as well.
func TestPktmonHangs(t *testing.T) {
	defer func(c, f time.Duration) { pktmonCommandTimeout, pktmonFinishTimeout = c, f }(pktmonCommandTimeout, pktmonFinishTimeout)
	pktmonCommandTimeout, pktmonFinishTimeout = 200*time.Millisecond, 300*time.Millisecond
	for _, hung := range []string{"pktmon filter list", "pktmon stop", "pktmon etl2pcap"} {
		r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters."}, hang: map[string]bool{hung: true}, pcap: fourPackets(t)}
		if hung == "pktmon filter list" {
			r.answers = nil
		}
		start := time.Now()
		_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: 10 * time.Millisecond, VXLANPorts: []uint16{4789}, TempDir: t.TempDir()}, &bytes.Buffer{})
		if took := time.Since(start); err == nil || !strings.HasPrefix(err.Error(), hung) || !strings.Contains(err.Error(), "did not finish within") || took > 2*time.Second {
			t.Errorf("%s hangs: %v after %s", hung, err, took)
		}
		if hung != "pktmon filter list" && r.calls[len(r.calls)-1] != "pktmon filter remove" {
			t.Errorf("%s hangs: filters left behind: %q", hung, r.calls)
		}
	}
}

func TestPktmonRefusesForeignFilters(t *testing.T) {
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "Packet Filters:\n     # Name  Protocol  Port\n     - ----  --------  ----\n     1 dns   UDP       53\n"}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}}, &bytes.Buffer{})
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
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters.", "pktmon start": "The system cannot find the path specified."},
		fail: map[string]bool{"pktmon start": true}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}, TempDir: t.TempDir()}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "cannot find the path") || strings.HasSuffix(err.Error(), ": ") {
		t.Fatalf("err = %v", err)
	}
	if last := r.calls[len(r.calls)-1]; last != "pktmon filter remove" {
		t.Errorf("filters left behind; last call %q", last)
	}
}

// A failure that prints nothing ends with the failure, not ": ".
func TestPktmonSilentFailure(t *testing.T) {
	r := &fakeRunner{fail: map[string]bool{"pktmon filter list": true}, answers: map[string]string{"pktmon filter list": ""}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}}, &bytes.Buffer{})
	if err == nil || err.Error() != "pktmon filter list: exit status 1" {
		t.Errorf("err = %q", err)
	}
}

// Abort (a second Ctrl-C) ends a stop or conversion that the interruption
// of the capture leaves running; the filters are removed all the same.
func TestPktmonAbort(t *testing.T) {
	for _, hung := range []string{"pktmon stop", "pktmon etl2pcap"} {
		r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters."}, hang: map[string]bool{hung: true}}
		ctx, interrupt := context.WithCancel(context.Background())
		abort, abandon := context.WithCancel(context.Background())
		interrupt()
		time.AfterFunc(50*time.Millisecond, abandon)
		start := time.Now()
		_, err := pktmonCapture(ctx, r, LiveOptions{Duration: time.Hour, VXLANPorts: []uint16{4789}, TempDir: t.TempDir(), Abort: abort}, &bytes.Buffer{})
		if took := time.Since(start); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), hung) || took > 5*time.Second {
			t.Errorf("%s hangs, aborted: %v after %s", hung, err, took)
		}
		if r.calls[len(r.calls)-1] != "pktmon filter remove" {
			t.Errorf("%s: filters left behind: %q", hung, r.calls)
		}
	}
}

// Set-up commands are given the capture's length, within bounds: a 2 s
// capture does not wait 30 s for a stuck pktmon filter list.
func TestPktmonSetupTimeout(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{
		2 * time.Second:  5 * time.Second,
		10 * time.Second: 10 * time.Second,
		time.Hour:        30 * time.Second,
	} {
		if got := setupTimeout(d); got != want {
			t.Errorf("setupTimeout(%s) = %s, want %s", d, got, want)
		}
	}
}

// A hung set-up command is the node's problem (exit 2), said with how its
// bound was chosen.
func TestPktmonHungIsTheNodes(t *testing.T) {
	defer func(c time.Duration) { pktmonCommandTimeout = c }(pktmonCommandTimeout)
	pktmonCommandTimeout = 200 * time.Millisecond
	r := &fakeRunner{hang: map[string]bool{"pktmon filter list": true}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: 2 * time.Second, VXLANPorts: []uint16{4789}, TempDir: t.TempDir()}, &bytes.Buffer{})
	var bad interface{ BadInput() bool }
	if !errors.As(err, &bad) || !bad.BadInput() || !strings.Contains(err.Error(), "within 200ms") || !strings.Contains(err.Error(), "capture's length") {
		t.Errorf("err = %v", err)
	}
}

// pktmon stop refused after a good start: the capture may still run, and
// the error says how to stop it.
func TestPktmonStopDenied(t *testing.T) {
	r := &fakeRunner{answers: map[string]string{"pktmon filter list": "There are no packet filters.", "pktmon stop": "Access is denied.\r\n"},
		fail: map[string]bool{"pktmon stop": true}}
	_, err := pktmonCapture(context.Background(), r, LiveOptions{Duration: time.Millisecond, VXLANPorts: []uint16{4789}, TempDir: t.TempDir()}, &bytes.Buffer{})
	if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "pktmon may still be capturing") || !strings.Contains(err.Error(), "pktmon stop") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v", err)
	}
}
