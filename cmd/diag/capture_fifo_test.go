//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A capture read from a named pipe (tcpdump -w into a FIFO, a process
// substitution) is decoded as the same file is: its bytes can be read
// once only, so nothing may read its head before the decoder does.
func TestCaptureDecodeReadsAFIFO(t *testing.T) {
	const in = "../../testdata/captures/seed-syn-unanswered.pcap"
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	want := runDiag(t, nil, false, "capture", "decode", "-o", "json", in)
	if want.code != 0 && want.code != 3 {
		t.Fatalf("the file: code %d, stderr %q", want.code, want.stderr)
	}
	fifo := filepath.Join(t.TempDir(), "capture.pcap")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	// One writer, as tcpdump is: the capture once, then the end.
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	done := make(chan result, 1)
	go func() { done <- runDiag(t, nil, false, "capture", "decode", "-o", "json", fifo) }()
	var got result
	select {
	case got = <-done:
	case <-time.After(30 * time.Second):
		// The capture went to an earlier reader and the decoder waits
		// for a writer: end its wait.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		got = <-done
		t.Errorf("the decoder was still waiting for the FIFO after 30 s")
	}
	if got.code != want.code {
		t.Fatalf("the FIFO: code %d (the file: %d), stderr %q", got.code, want.code, got.stderr)
	}
	if g, w := strings.ReplaceAll(got.stdout, fifo, "X"), strings.ReplaceAll(want.stdout, in, "X"); g != w {
		t.Errorf("the FIFO's report differs from the file's:\n%s\n%s", g, w)
	}
}
