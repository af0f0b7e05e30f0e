package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// capture start refuses a --vxlan-port outside 1-65535 before it captures,
// as capture decode, bundle redact and anonymize do: 0 is no port, and
// 70000 would be cut to 16 bits (4464) and capture the wrong traffic.
// validate is called directly so that the test never starts a capture.
func TestCaptureStartRefusesBadVXLANPort(t *testing.T) {
	for _, p := range []uint{0, 65536, 70000} {
		out := filepath.Join(t.TempDir(), "o.pcapng")
		o := &captureStartOptions{duration: time.Second, output: out, ports: []uint{p}}
		err := o.validate()
		if err == nil {
			t.Errorf("--vxlan-port %d: accepted", p)
			continue
		}
		if code, msg := exitCode(err); code != 2 {
			t.Errorf("--vxlan-port %d: exit %d (%s), want 2", p, code, msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--vxlan-port %d: %s created", p, out)
		}
	}
}
