package hostexec

import (
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

var procNtResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// processTree is a tool and whatever it starts, held in a job object that
// kills them all when the tool exits or is cancelled: a process the tool
// leaves behind (a PowerShell that starts a helper, a WMI provider host)
// holds its output pipe open, which would keep us waiting, and must not
// outlive the collection.
type processTree struct {
	job, proc windows.Handle
	exited    chan struct{}
}

// startTree starts cmd suspended, puts it in a new job (so that what it
// starts is in the job too, with no moment outside it) and resumes it.
func startTree(cmd *exec.Cmd) (*processTree, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("job object: %w", err)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	cmd.Cancel = func() error {
		windows.TerminateJobObject(job, 1)
		return cmd.Process.Kill()
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME|windows.SYNCHRONIZE,
		false, uint32(cmd.Process.Pid))
	if err != nil {
		// Suspended and out of reach: it must not be left so.
		cmd.Process.Kill()
		cmd.Wait()
		windows.CloseHandle(job)
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	// Where the job cannot take it (a job that forbids nesting), the tool
	// runs all the same, only what it leaves is not ended with it (the
	// empty job is ended to no effect).
	windows.AssignProcessToJobObject(job, proc)
	if r, _, _ := procNtResumeProcess.Call(uintptr(proc)); r != 0 {
		cmd.Process.Kill()
		cmd.Wait()
		windows.CloseHandle(proc)
		windows.CloseHandle(job)
		return nil, fmt.Errorf("start %s: NtResumeProcess: NTSTATUS %#x", cmd.Path, r)
	}
	t := &processTree{job: job, proc: proc, exited: make(chan struct{})}
	go func() {
		// The tool has exited: end what it left, so that its output
		// pipe closes now.
		windows.WaitForSingleObject(proc, windows.INFINITE)
		windows.TerminateJobObject(job, 1)
		close(t.exited)
	}()
	return t, nil
}

// end kills what is left of the tree; cmd.Wait has returned.
func (t *processTree) end() {
	<-t.exited
	windows.CloseHandle(t.proc)
	windows.CloseHandle(t.job)
}
