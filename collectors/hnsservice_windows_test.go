//go:build windows

package collectors

import "testing"

// ReadHNSService against the machine's service manager: a node with HNS
// gives its running process's figures; a machine without the service (or
// without the rights) says why, and nothing panics.
func TestReadHNSService(t *testing.T) {
	s := ReadHNSService()
	switch s.Unobservable {
	case "":
		if s.Running && (s.PID == 0 || s.Threads == 0 || s.Handles == 0 || s.WorkingSet == 0 || s.Started.IsZero()) {
			t.Errorf("a running HNS with figures missing: %+v", s)
		}
	case "no_service", "access_denied":
	default:
		t.Errorf("HNS service unreadable for an unnamed reason: %+v", s)
	}
	t.Logf("%+v", s)
}
