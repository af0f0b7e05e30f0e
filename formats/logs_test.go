package formats

import (
	"strings"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// TestScanLog: each kind in the words the components use, counted with
// its last line; kube-proxy starts only in kube-proxy's log; a line longer
// than the buffer is judged by its start and the lines after it still count.
func TestScanLog(t *testing.T) {
	long := strings.Repeat("x", maxLogLine+100)
	text := strings.Join([]string{
		`I1124 09:00:00.1 4412 server.go:847] "Version info" version="v1.31.4"`,
		`E1124 09:00:01.0 4412 reflector.go:158] Failed to watch *v1.Service: failed to list *v1.Service: Unauthorized`,
		"Unauthorized " + long,
		`{"level":"error","msg":"Failed to get network: Network name \"flannel.4096\" not found"}`,
		`Failed create pod sandbox: ... network: Failed to create endpoint: HNS failed with error : Element not found.`,
		`panic: runtime error: invalid memory address or nil pointer dereference`,
		`I1124 09:05:00.1 5000 server.go:847] "Version info" version="v1.31.4"`,
		`E1124 09:06:00.1 5000 proxier.go:1230] Unable to find HNS Network specified by flannel.4096. Please check network name and CNI deployment`,
		`the last line`,
	}, "\n")
	lf, err := scanLog(strings.NewReader(text), "logs/kube-proxy/kube-proxy.log", "kube-proxy")
	if err != nil {
		t.Fatal(err)
	}
	// hcsshim's not found is the CNI's: kube-proxy retries it after every reboot.
	want := map[string][2]int{snapshot.LogStart: {2, 7}, snapshot.LogUnauthorized: {2, 3}, snapshot.LogHNSNotFound: {1, 5}, snapshot.LogPanic: {1, 6}, snapshot.LogProxyNoNetwork: {1, 8}}
	for kind, w := range want {
		ev := lf.Events[kind]
		if ev == nil || ev.Count != w[0] || ev.LastLine != w[1] {
			t.Errorf("%s: %+v, want count %d line %d", kind, ev, w[0], w[1])
		}
	}
	if lf.Lines != 9 || len(lf.Events[snapshot.LogUnauthorized].LastText) > 310 {
		t.Errorf("%d lines, last Unauthorized text %d bytes", lf.Lines, len(lf.Events[snapshot.LogUnauthorized].LastText))
	}
	if lf.Events[snapshot.LogNetworkNotFound] != nil {
		t.Error("network not found counted in kube-proxy's log")
	}
	if m := lf.Events[snapshot.LogStart].Minutes; len(m) != 2 || m[1]-m[0] != 5 {
		t.Errorf("start times %v, want two 5 minutes apart", m)
	}
	cni, _ := scanLog(strings.NewReader(text), "logs/cni/x.log", "cni")
	if cni.Events[snapshot.LogStart] != nil || cni.Events[snapshot.LogNetworkNotFound] == nil || cni.Events[snapshot.LogNetworkNotFound].LastLine != 4 {
		t.Errorf("CNI log: %+v", cni.Events)
	}
}

func FuzzScanLog(f *testing.F) {
	f.Add([]byte("I1124 server.go] \"Version info\"\nUnauthorized\n\xff\xfe broken utf-8 panic: x\n"))
	f.Add([]byte(`Network ID \"abc\" not found` + "\r\n"))
	f.Add([]byte("E1124 \"Policy creation failed\" err=\"hnsCall failed in Win32: (0x803b000d)\"\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		lf, err := scanLog(strings.NewReader(string(in)), "logs/kube-proxy/k.log", "kube-proxy")
		if err != nil {
			t.Fatal(err)
		}
		if lf.Lines > strings.Count(string(in), "\n")+1 {
			t.Fatalf("%d lines from %d newlines", lf.Lines, strings.Count(string(in), "\n"))
		}
		for k, ev := range lf.Events {
			if ev.Count < 1 || ev.LastLine < 1 || ev.LastLine > lf.Lines || len(ev.LastText) > 310 {
				t.Fatalf("%s: %+v", k, ev)
			}
		}
		// The same from a plain split: a long line judged by its start.
		lines := strings.SplitAfter(string(in), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if lf.Lines != len(lines) {
			t.Fatalf("%d lines, a split says %d", lf.Lines, len(lines))
		}
		for _, p := range patternsFor("kube-proxy") {
			count, last := 0, 0
			for i, l := range lines {
				if len(l) > maxLogLine {
					l = l[:maxLogLine]
				}
				if p.re.MatchString(l) {
					count, last = count+1, i+1
				}
			}
			ev := lf.Events[p.kind]
			if count == 0 && ev != nil || count > 0 && (ev == nil || ev.Count != count || ev.LastLine != last) {
				t.Fatalf("%s: %+v, a split says %d, last %d", p.kind, ev, count, last)
			}
		}
	})
}

// TestParseHNSEvents: the Error events of the HNS channels, newest first
// as Get-WinEvent gives them: the first one is the last that happened.
func TestParseHNSEvents(t *testing.T) {
	lf, err := parseHNSEvents([]byte(`{"Events":[{"Level":"Information","Message":"x"},{"Id":1001,"Level":"Error","TimeCreated":"t2","Message":"newer\n error"},
		{"Id":1002,"Level":"Error","TimeCreated":"t1","Message":"older"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ev := lf.Events[snapshot.LogHNSEventError]
	if ev == nil || ev.Count != 2 || ev.LastText != "t2 event 1001: newer error" || ev.LastLine != 2 || lf.Lines != 3 {
		t.Errorf("%+v %+v", lf, ev)
	}
	if lf, _ := parseHNSEvents([]byte(`{"Events":[]}`)); lf == nil || lf.Events != nil {
		t.Errorf("no events: %+v", lf)
	}
}
