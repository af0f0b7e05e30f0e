package collectors

import "time"

// HNSServiceStats is the HNS service's process as the OS reports it: the
// signal microsoft/SDN's hnsautomitigator acts on when HNS leaks threads.
// diag only reads it; it never restarts anything (diag monitor publishes it).
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
