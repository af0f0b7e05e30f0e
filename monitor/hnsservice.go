package monitor

import "github.com/wincni/diag/collectors"

// HNSServiceStats is the HNS service process as collectors reads it.
type HNSServiceStats = collectors.HNSServiceStats

// HNSServiceReader reads the HNS service's process; collectors.ReadHNSService
// is the platform's.
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
