//go:build windows

package collectors

import (
	"errors"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	kernel32                = windows.NewLazySystemDLL("kernel32.dll")
	procGetProcessHandleCnt = kernel32.NewProc("GetProcessHandleCount")
	procGetProcessMemInfo   = kernel32.NewProc("K32GetProcessMemoryInfo")
)

// processMemoryCountersEx is PROCESS_MEMORY_COUNTERS_EX (psapi.h).
type processMemoryCountersEx struct {
	CB                         uint32
	PageFaultCount             uint32
	PeakWorkingSetSize         uintptr
	WorkingSetSize             uintptr
	QuotaPeakPagedPoolUsage    uintptr
	QuotaPagedPoolUsage        uintptr
	QuotaPeakNonPagedPoolUsage uintptr
	QuotaNonPagedPoolUsage     uintptr
	PagefileUsage              uintptr
	PeakPagefileUsage          uintptr
	PrivateUsage               uintptr
}

// ReadHNSService reads the hns service's state from the service control
// manager, then its process's threads, handles, memory and start time.
// Every call is a query: nothing here can change the service.
func ReadHNSService() HNSServiceStats {
	scm, err := windows.OpenSCManager(nil, nil, windows.SC_MANAGER_CONNECT)
	if err != nil {
		return HNSServiceStats{Unobservable: reasonOf(err)}
	}
	defer windows.CloseServiceHandle(scm)
	name, _ := windows.UTF16PtrFromString("hns")
	svc, err := windows.OpenService(scm, name, windows.SERVICE_QUERY_STATUS)
	if err != nil {
		if errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
			return HNSServiceStats{Unobservable: "no_service"}
		}
		return HNSServiceStats{Unobservable: reasonOf(err)}
	}
	defer windows.CloseServiceHandle(svc)
	var st windows.SERVICE_STATUS_PROCESS
	var need uint32
	if err := windows.QueryServiceStatusEx(svc, windows.SC_STATUS_PROCESS_INFO, (*byte)(unsafe.Pointer(&st)), uint32(unsafe.Sizeof(st)), &need); err != nil {
		return HNSServiceStats{Unobservable: reasonOf(err)}
	}
	out := HNSServiceStats{Running: st.CurrentState == windows.SERVICE_RUNNING, PID: st.ProcessId}
	if !out.Running || st.ProcessId == 0 {
		return out
	}
	out.Threads = threadsOf(st.ProcessId)
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, st.ProcessId)
	if err != nil {
		out.Unobservable = reasonOf(err)
		return out
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) == nil {
		out.Started = time.Unix(0, created.Nanoseconds())
	}
	var handles uint32
	if r, _, _ := procGetProcessHandleCnt.Call(uintptr(h), uintptr(unsafe.Pointer(&handles))); r != 0 {
		out.Handles = int(handles)
	}
	mem := processMemoryCountersEx{CB: uint32(unsafe.Sizeof(processMemoryCountersEx{}))}
	if r, _, _ := procGetProcessMemInfo.Call(uintptr(h), uintptr(unsafe.Pointer(&mem)), uintptr(mem.CB)); r != 0 {
		out.WorkingSet, out.Private = uint64(mem.WorkingSetSize), uint64(mem.PrivateUsage)
	}
	return out
}

// threadsOf counts a process's threads from a process snapshot.
func threadsOf(pid uint32) int {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(snap)
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID == pid {
			return int(e.Threads)
		}
	}
	return 0
}

func reasonOf(err error) string {
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return "access_denied"
	}
	return "error"
}
