package collectors

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
	if err == nil {
		err = windows.AssignProcessToJobObject(job, proc)
		if err == nil {
			if r, _, _ := procNtResumeProcess.Call(uintptr(proc)); r != 0 {
				err = fmt.Errorf("NtResumeProcess: NTSTATUS %#x", r)
			}
		}
	}
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		if proc != 0 {
			windows.CloseHandle(proc)
		}
		windows.CloseHandle(job)
		return nil, fmt.Errorf("start %s in a job object: %w", cmd.Path, err)
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
	windows.TerminateJobObject(t.job, 1)
	<-t.exited
	windows.CloseHandle(t.proc)
	windows.CloseHandle(t.job)
}
