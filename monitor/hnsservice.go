package monitor

import "time"

// HNSServiceStats is the HNS service's process as the OS reports it: the
// signal microsoft/SDN's hnsautomitigator acts on when HNS leaks threads.
// The monitor only reads it; it never restarts anything.
type HNSServiceStats struct {
	// Unobservable is "" when the service was read, else why not:
	// not_windows, no_service, access_denied or error.
	Unobservable string
	Running      bool
	PID          uint32
	Started      time.Time // the process's creation time
	Threads      int
	Handles      int
	WorkingSet   uint64 // bytes
	Private      uint64 // bytes
}

// HNSServiceReader reads the HNS service's process; ReadHNSService is the
// platform's.
type HNSServiceReader func() HNSServiceStats

// restarted says whether the service's process changed between two looks:
// another PID or another start time while running both times, or running
// again after it was seen stopped.
func restarted(before, now HNSServiceStats) bool {
	if now.Unobservable != "" || before.Unobservable != "" || !now.Running {
		return false
	}
	if !before.Running {
		return true
	}
	return before.PID != now.PID || !before.Started.IsZero() && !now.Started.Equal(before.Started)
}
