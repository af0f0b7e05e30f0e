package collectors

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/tools/wine/standin/standintest"
)

// These tests run the Windows collectors through ExecRunner against
// stand-ins of powershell.exe, vfpctrl and netsh (tools/wine/standin):
// real processes, real pipes, under Wine for the Windows build.

// recorded reads a file of recorded tool output.
func recorded(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// collectWith runs the collectors named by ids with the real runner and
// returns the bundle.
func collectWith(t *testing.T, ids ...string) *bundle.Bundle {
	t.Helper()
	var cs []Collector
	for _, c := range WindowsCollectors() {
		if slices.Contains(ids, c.ID) {
			cs = append(cs, c)
		}
	}
	w, path := newTestWriter(t)
	Run(context.Background(), w, &Env{Runner: ExecRunner{}}, cs, RunOptions{Parallel: 4})
	return closeAndVerify(t, w, path)
}

func entry(t *testing.T, b *bundle.Bundle, name string) []byte {
	t.Helper()
	data, err := b.ReadFile(name)
	if err != nil {
		t.Errorf("%s: %v", name, err)
	}
	return data
}

// PowerShell 5.1 writes a UTF-8 byte order mark before the first line once
// its output encoding is UTF-8: every PowerShell collector takes what
// follows it, and stores it without the mark.
func TestPowerShellByteOrderMark(t *testing.T) {
	seed := "../testdata/bundles/seed-broken/host/"
	scripts := map[string]struct{ match, file, entry string }{
		"host-adapters": {"Get-NetAdapter", seed + "adapters.json", "host/adapters.json"},
		"host-routes":   {"Get-NetRoute -ErrorAction", seed + "routes.json", "host/routes.json"},
		"firewall":      {"Get-NetFirewallProfile", seed + "firewall.json", "host/firewall.json"},
		"os":            {"CurrentVersion", seed + "os.json", "host/os.json"},
	}
	var rules []standintest.Rule
	for _, s := range scripts {
		rules = append(rules, standintest.Rule{Tool: "powershell", Args: s.match, BOM: true, Stdout: recorded(t, s.file)})
	}
	cmdline := `"C:\k\kube-proxy.exe" --hostname-override=win-1 --network-name=Calico --source-vip=100.244.206.66` + "\r\n"
	rules = append(rules, standintest.Rule{Tool: "powershell", Args: "kube-proxy.exe", BOM: true, Stdout: cmdline})
	calls := standintest.Install(t, rules)
	b := collectWith(t, "host-adapters", "host-routes", "firewall", "os", "kube-proxy")
	for id, s := range scripts {
		if r := result(t, b, id); r.Status != manifest.StatusOK {
			t.Errorf("%s: %s: %s", id, r.Status, r.Error)
			continue
		}
		if got := entry(t, b, s.entry); string(got) != recorded(t, s.file) {
			t.Errorf("%s: stored %q..., want the recorded output without the mark", s.entry, got[:min(len(got), 20)])
		}
	}
	if got := entry(t, b, "config/kube-proxy/cmdline.txt"); string(got) != cmdline {
		t.Errorf("kube-proxy command line stored as %q, want %q", got, cmdline)
	}
	if n := standintest.Count(calls(), "powershell "); n != 5 {
		t.Errorf("powershell ran %d times, want 5: %q", n, calls())
	}
}

// A tool that answers and exits 0 but leaves a process holding its output
// pipe: the collector is ok, does not wait for that process, and the
// process is ended with the tool.
func TestToolLeavesProcessHoldingOutput(t *testing.T) {
	const hold = 5 * time.Second
	calls := standintest.Install(t, []standintest.Rule{
		{Tool: "powershell", Args: "CurrentVersion", Stdout: recorded(t, "../testdata/bundles/seed-broken/host/os.json"), Grandchild: hold.String()},
	})
	start := time.Now()
	b := collectWith(t, "os")
	took := time.Since(start)
	if r := result(t, b, "os"); r.Status != manifest.StatusOK {
		t.Errorf("os: %s: %s", r.Status, r.Error)
	}
	if took >= hold {
		t.Errorf("the collection took %s: it waited for the process the tool left", took)
	}
	time.Sleep(hold + time.Second - time.Since(start))
	if slices.Contains(calls(), "grandchild outlived the tool") {
		t.Errorf("the process the tool left was still running %s later: %q", hold, calls())
	}
}

// netsh answers nothing at all: no query answered is a failed collector,
// not an "ok" with empty tables; one answered out of four is partial, the
// others named.
func TestNetshEmptyAnswer(t *testing.T) {
	t.Run("none", func(t *testing.T) {
		standintest.Install(t, []standintest.Rule{{Tool: "netsh"}})
		b := collectWith(t, "port-ranges")
		r := result(t, b, "port-ranges")
		if r.Status != manifest.StatusFailed || !strings.Contains(r.Error, "answered none") || b.Has("host/portranges.json") {
			t.Errorf("port-ranges: %s %q, has the file: %v", r.Status, r.Error, b.Has("host/portranges.json"))
		}
	})
	t.Run("some", func(t *testing.T) {
		standintest.Install(t, []standintest.Rule{
			{Tool: "netsh", Args: "excludedportrange protocol=tcp", Stdout: recorded(t, "testdata/standin/netsh-excludedportrange-tcp.txt")},
			{Tool: "netsh", Args: "dynamicport tcp", Stdout: recorded(t, "testdata/standin/netsh-dynamicport-tcp.txt")},
			{Tool: "netsh"},
		})
		b := collectWith(t, "port-ranges")
		r := result(t, b, "port-ranges")
		if r.Status != manifest.StatusPartial || !strings.Contains(r.Error, "dynamicport udp printed nothing") {
			t.Errorf("port-ranges: %s %q", r.Status, r.Error)
		}
		got := entry(t, b, "host/portranges.json")
		for _, want := range []string{`"start": 50000`, `"end": 50059`, `"count": 16384`} {
			if !bytes.Contains(got, []byte(want)) {
				t.Errorf("host/portranges.json lacks %s: %s", want, got)
			}
		}
		if bytes.Contains(got, []byte(`"udp"`)) {
			t.Errorf("host/portranges.json has a udp table netsh never gave: %s", got)
		}
	})
}

// vfpctrl as a node has it: the port list, then each port's dump; a
// /format 1 it does not know is left out, not an error.
func TestVFPStandIn(t *testing.T) {
	port := "D4C3B2A1-0F9E-8D7C-6B5A-493827161504"
	dump := recorded(t, "../testdata/bundles/seed-broken/vfp/port-"+port+".txt")
	calls := standintest.Install(t, []standintest.Rule{
		{Tool: "vfpctrl", Args: "/format 1", Stdout: "ERROR: unknown option /format\r\n", Exit: 1},
		{Tool: "vfpctrl", Args: "/list-vmswitch-port", Stdout: recorded(t, "testdata/standin/vfpctrl-list-vmswitch-port.txt")},
		{Tool: "vfpctrl", Args: "/list-rule", Stdout: dump},
		{Tool: "vfpctrl", Args: "/port " + port, Stdout: "Command succeeded!\r\n"},
	})
	b := collectWith(t, "vfp")
	if r := result(t, b, "vfp"); r.Status != manifest.StatusOK {
		t.Errorf("vfp: %s %q", r.Status, r.Error)
	}
	got := entry(t, b, "vfp/port-"+port+".txt")
	if !strings.HasPrefix(string(got), dump) || b.Has("vfp/ports.json") {
		t.Errorf("vfp/port-%s.txt: %.200q; ports.json: %v", port, got, b.Has("vfp/ports.json"))
	}
	if n := standintest.Count(calls(), "vfpctrl /port "+port); n != len(vfpPortCommands) {
		t.Errorf("%d calls for the port, want %d: %q", n, len(vfpPortCommands), calls())
	}
}

// A PowerShell that hangs is ended at the collector's timeout, recorded as
// a timeout, and does not hold up the run.
func TestPowerShellHangs(t *testing.T) {
	standintest.Install(t, []standintest.Rule{{Tool: "powershell", Hang: true}})
	c := psCollector("host/os.json", psOS)
	w, path := newTestWriter(t)
	start := time.Now()
	Run(context.Background(), w, &Env{Runner: ExecRunner{}}, []Collector{{ID: "os", Timeout: time.Second, Run: c}}, RunOptions{})
	if took := time.Since(start); took > 1*time.Second+grace+time.Second {
		t.Errorf("the run took %s", took)
	}
	b := closeAndVerify(t, w, path)
	if r := result(t, b, "os"); r.Status != manifest.StatusTimeout {
		t.Errorf("os: %s %q", r.Status, r.Error)
	}
}
