package snapshot

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// LogEvent kinds: failures the components say in their own words.
const (
	LogUnauthorized    = "unauthorized"      // the API server refused the component's token
	LogStart           = "start"             // kube-proxy started ("Version info")
	LogPanic           = "panic"             // the process crashed
	LogNetworkNotFound = "network-not-found" // hcsshim NetworkNotFoundError: the HNS network the CNI wants is gone
	LogHNSNotFound     = "hns-element-not-found"
	LogHNSExists       = "hns-object-exists"
	LogProxyNoNetwork  = "proxy-network-missing" // kube-proxy cannot find its HNS network and removes its policies
	LogProxyPolicy     = "proxy-policy-failed"   // kube-proxy failed to create a load balancer or remote endpoint
	LogHNSEventError   = "hns-event-error"       // an Error in HNS's own event channels
)

// FileHNSEvents is where the collector keeps the HNS event channels.
const FileHNSEvents = "events/hns.json"

// parseHNSEvents reads events/hns.json ({"Events": [{Log, TimeCreated,
// Id, Level, Message}]}, newest first as Get-WinEvent gives them) as a
// log: its errors, counted, with the newest as the last one.
func parseHNSEvents(data []byte) (*LogFile, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	lf := &LogFile{File: FileHNSEvents, Component: "hns"}
	events := o.list("Events")
	lf.Lines = len(events)
	for i, ev := range events {
		if !strings.EqualFold(ev.str("Level"), "Error") {
			continue
		}
		if lf.Events == nil {
			lf.Events = map[string]*LogEvent{}
		}
		e := lf.Events[LogHNSEventError]
		if e == nil {
			// Newest first: the first error is the last one that happened,
			// at "line" = events after it, so that recency reads alike.
			id, _ := ev.num("Id")
			text := strings.Join(strings.Fields(ev.str("Message")), " ")
			if len(text) > 300 {
				text = strings.ToValidUTF8(text[:300], "") + "…"
			}
			e = &LogEvent{LastLine: lf.Lines - i, LastText: fmt.Sprintf("%s event %d: %s", ev.str("TimeCreated"), id, text)}
			lf.Events[LogHNSEventError] = e
		}
		e.Count++
	}
	return lf, nil
}

// LogFile is what diag read from one component log of the bundle: per
// kind, how often and where last; and how many lines the file has.
type LogFile struct {
	File      string               `json:"file"`
	Component string               `json:"component"` // kube-proxy, cni, flannel, calico
	Lines     int                  `json:"lines"`
	Events    map[string]*LogEvent `json:"events,omitempty"`
}

// LogEvent is one kind of event in a log: its count, and the last one.
type LogEvent struct {
	Count    int    `json:"count"`
	LastLine int    `json:"lastLine"`
	LastText string `json:"lastText"`
}

// logPatterns recognise each kind by the component's own message:
// client-go's reflector and the components' API calls say Unauthorized
// for a 401; kube-proxy logs "Version info" first thing at every start
// (cmd/kube-proxy/app/server.go Run); Go prints "panic:" and the crashing
// goroutine; hcsshim's NetworkNotFoundError reads Network name "x" not
// found (or Network ID); HNS's own errors come through as "HNS failed
// with error : Element not found" and "The object already exists".
var logPatterns = []struct {
	kind string
	re   *regexp.Regexp
}{
	{LogUnauthorized, regexp.MustCompile(`\bUnauthorized\b`)},
	{LogStart, regexp.MustCompile(`"Version info"|\] Version: v\d`)},
	{LogPanic, regexp.MustCompile(`^panic: |goroutine \d+ \[running\]:`)},
	{LogNetworkNotFound, regexp.MustCompile(`Network (?:name|ID) \\?"[^"]*" not found`)}, // quotes escaped in JSON logs
	{LogHNSNotFound, regexp.MustCompile(`(?i)HNS failed with error\s*:\s*Element not found`)},
	{LogHNSExists, regexp.MustCompile(`(?i)hnsCall failed in Win32: The object already exists|0x800700b7|Cannot create a file when that file already exists`)},
	// winkernel proxier.go syncProxyRules, in its own words.
	{LogProxyNoNetwork, regexp.MustCompile(`Unable to find HNS Network specified by`)},
	{LogProxyPolicy, regexp.MustCompile(`Policy creation failed|Remote endpoint creation failed`)},
}

// maxLogLine bounds one line of a log (a JSON blob on one line is cut).
const maxLogLine = 64 << 10

// scanLog reads a log line by line, keeping only the events.
func scanLog(r io.Reader, file, component string) (*LogFile, error) {
	lf := &LogFile{File: file, Component: component}
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
		for _, p := range logPatterns {
			if (p.kind == LogStart || p.kind == LogProxyNoNetwork || p.kind == LogProxyPolicy) && component != "kube-proxy" {
				continue
			}
			if !p.re.MatchString(line) {
				continue
			}
			if lf.Events == nil {
				lf.Events = map[string]*LogEvent{}
			}
			ev := lf.Events[p.kind]
			if ev == nil {
				ev = &LogEvent{}
				lf.Events[p.kind] = ev
			}
			ev.Count++
			ev.LastLine = lf.Lines
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
	for _, c := range []string{"kube-proxy", "cni", "flannel", "calico"} {
		if strings.HasPrefix(name, "logs/"+c+"/") {
			return c
		}
	}
	return ""
}
