package formats

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/wincni/diag/snapshot"
)

// parseHNSEvents reads events/hns.json ({"Events": [{Log, TimeCreated,
// Id, Level, Message}]}, newest first as Get-WinEvent gives them) as a
// log: its errors, counted, with the newest as the last one.
func parseHNSEvents(data []byte) (*snapshot.LogFile, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	lf := &snapshot.LogFile{File: snapshot.FileHNSEvents, Component: "hns"}
	events := o.list("Events")
	lf.Lines = len(events)
	for i, ev := range events {
		// Level 1 Critical, 2 Error (LevelDisplayName is translated).
		level, isNum := ev.num("Level")
		if !(isNum && (level == 1 || level == 2)) && !strings.EqualFold(ev.str("Level"), "Error") && !strings.EqualFold(ev.str("LevelName"), "Error") {
			continue
		}
		if lf.Events == nil {
			lf.Events = map[string]*snapshot.LogEvent{}
		}
		e := lf.Events[snapshot.LogHNSEventError]
		if e == nil {
			// Newest first: the first error is the last one that happened,
			// at "line" = events after it, so that recency reads alike.
			id, _ := ev.num("Id")
			text := strings.Join(strings.Fields(ev.str("Message")), " ")
			if len(text) > 300 {
				text = strings.ToValidUTF8(text[:300], "") + "…"
			}
			e = &snapshot.LogEvent{LastLine: lf.Lines - i, LastText: fmt.Sprintf("%s event %d: %s", ev.str("TimeCreated"), id, text)}
			if t, err := time.Parse(time.RFC3339Nano, ev.str("TimeCreated")); err == nil {
				e.LastTime = t
			}
			lf.Events[snapshot.LogHNSEventError] = e
		} else if t, err := time.Parse(time.RFC3339Nano, ev.str("TimeCreated")); err == nil && t.After(e.LastTime) {
			// The two channels are listed one after the other.
			e.LastTime, e.LastText = t, fmt.Sprintf("%s event %d: %s", ev.str("TimeCreated"), func() int64 { n, _ := ev.num("Id"); return n }(), strings.Join(strings.Fields(ev.str("Message")), " "))
			if len(e.LastText) > 300 {
				e.LastText = strings.ToValidUTF8(e.LastText[:300], "") + "…"
			}
		}
		e.Count++
	}
	return lf, nil
}

// maxStartTimes bounds LogEvent.Minutes.
const maxStartTimes = 64

// klogMinutes reads the time of a klog header (Lmmdd hh:mm:ss...) as
// minutes into the year; false when the line has none.
func klogMinutes(line string) (int, bool) {
	if len(line) < 12 || !strings.ContainsRune("IWEF", rune(line[0])) || line[5] != ' ' || line[8] != ':' || line[11] != ':' {
		return 0, false
	}
	n := func(s string) int {
		v := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	mo, d, h, mi := n(line[1:3]), n(line[3:5]), n(line[6:8]), n(line[9:11])
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 {
		return 0, false
	}
	return ((mo-1)*31+d-1)*1440 + h*60 + mi, true
}

// logPatterns recognise each kind by the component's own message:
// client-go's reflector and the components' API calls say Unauthorized
// for a 401; kube-proxy logs "Version info" first thing at every start
// (cmd/kube-proxy/app/server.go Run); Go prints "panic:" and the crashing
// goroutine; hcsshim's NetworkNotFoundError reads Network name "x" not
// found (or Network ID); HNS's own errors come through as "HNS failed
// with error : Element not found" and "The object already exists".
// Compiled on first use, not by every command at start-up.
var logPatterns = sync.OnceValue(func() []logPattern {
	return []logPattern{
		{snapshot.LogUnauthorized, regexp.MustCompile(`\bUnauthorized\b`)},
		{snapshot.LogStart, regexp.MustCompile(`"Version info"|\] Version: v\d`)},
		{snapshot.LogPanic, regexp.MustCompile(`^panic: |goroutine \d+ \[running\]:`)},
		{snapshot.LogNetworkNotFound, regexp.MustCompile(`Network (?:name|ID) \\?"[^"]*" not found`)}, // quotes escaped in JSON logs
		{snapshot.LogHNSNotFound, regexp.MustCompile(`(?i)HNS failed with error\s*:\s*Element not found`)},
		{snapshot.LogHNSExists, regexp.MustCompile(`(?i)hnsCall failed in Win32: The object already exists|0x800700b7|Cannot create a file when that file already exists`)},
		// winkernel proxier.go syncProxyRules, in its own words.
		// ...and in syncProxyRules when the network's ID changed: HNS
		// restarted or the network was recreated; kube-proxy drops its policies.
		{snapshot.LogProxyNoNetwork, regexp.MustCompile(`Unable to find HNS Network specified|The HNS network \S+ is not present or has changed`)},
		{snapshot.LogProxyPolicy, regexp.MustCompile(`Policy creation failed|Remote endpoint creation failed`)},
		// HNS's E_INVALIDARG for policies (hcnCreateEndpoint / HNSCall), as
		// the CNI, kubelet and containerd pass it on.
		{snapshot.LogPolicyRejected, regexp.MustCompile(`(?i)0x803b000d|The provided policy configuration is invalid or missing parameters`)},
	}
})

type logPattern struct {
	kind string
	re   *regexp.Regexp
}

// runtimeKinds are what the kubelet's and containerd's logs are read for:
// the sandbox failures they pass on from the CNI and HNS. Their other
// errors (image pulls, volumes, files that exist) are not networking's.
var runtimeKinds = map[string]bool{snapshot.LogPolicyRejected: true, snapshot.LogPanic: true}

// runtimePanic: the kubelet's and containerd's servers recover from a
// handler's panic and print its goroutine, so there only a panic that
// ends the process counts.
var runtimePanic = lazyRegexp(`^panic: `)

// patternsFor are the patterns a component's log is read for, chosen once
// per log rather than at every line.
func patternsFor(component string) []logPattern {
	var out []logPattern
	for _, p := range logPatterns() {
		switch {
		case (p.kind == snapshot.LogStart || p.kind == snapshot.LogProxyNoNetwork || p.kind == snapshot.LogProxyPolicy) && component != "kube-proxy":
			continue
		// kube-proxy retries its network every second until flanneld
		// or Calico creates it after a reboot: hcsshim's not found is
		// the CNI's failure, kube-proxy's own is LogProxyNoNetwork.
		case p.kind == snapshot.LogNetworkNotFound && component == "kube-proxy":
			continue
		// kube-proxy's rejected policies are load balancers, which
		// LogProxyPolicy's "Policy creation failed" reports.
		case p.kind == snapshot.LogPolicyRejected && component == "kube-proxy":
			continue
		case component == "kubelet" || component == "containerd":
			if !runtimeKinds[p.kind] {
				continue
			}
			if p.kind == snapshot.LogPanic {
				p.re = runtimePanic()
			}
		}
		out = append(out, p)
	}
	return out
}

// maxLogLine bounds one line of a log (a JSON blob on one line is cut).
const maxLogLine = 64 << 10

// scanLog reads a log line by line, keeping only the events.
func scanLog(r io.Reader, file, component string) (*snapshot.LogFile, error) {
	lf := &snapshot.LogFile{File: file, Component: component}
	patterns := patternsFor(component)
	br := bufio.NewReaderSize(r, maxLogLine)
	for {
		raw, err := br.ReadSlice('\n')
		// Copied now: the next read reuses the buffer.
		line := string(raw)
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: its start is judged, the
			// rest skipped up to its end.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
		}
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				return lf, nil
			}
			return lf, err
		}
		lf.Lines++
		for _, p := range patterns {
			if !p.re.MatchString(line) {
				continue
			}
			if lf.Events == nil {
				lf.Events = map[string]*snapshot.LogEvent{}
			}
			ev := lf.Events[p.kind]
			if ev == nil {
				ev = &snapshot.LogEvent{}
				lf.Events[p.kind] = ev
			}
			ev.Count++
			ev.LastLine = lf.Lines
			if p.kind == snapshot.LogStart {
				if m, ok := klogMinutes(line); ok {
					ev.Minutes = append(ev.Minutes, m)
					if len(ev.Minutes) > maxStartTimes {
						ev.Minutes = ev.Minutes[1:]
					}
				}
			}
			ev.LastText = strings.ToValidUTF8(strings.TrimSpace(line), "?")
			if len(ev.LastText) > 300 {
				ev.LastText = strings.ToValidUTF8(ev.LastText[:300], "") + "…"
			}
		}
		if err == io.EOF {
			return lf, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return lf, err
		}
	}
}

// logComponent is the component of a bundle log path, "" for none.
func logComponent(name string) string {
	for _, c := range []string{"kube-proxy", "cni", "flannel", "calico", "kubelet", "containerd"} {
		if strings.HasPrefix(name, "logs/"+c+"/") {
			return c
		}
	}
	return ""
}
