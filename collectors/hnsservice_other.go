//go:build !windows

package collectors

// ReadHNSService: HNS exists on Windows only.
func ReadHNSService() HNSServiceStats { return HNSServiceStats{Unobservable: "not_windows"} }
