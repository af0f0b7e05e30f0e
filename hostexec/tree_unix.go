//go:build unix

package hostexec

import (
	"os/exec"
	"syscall"
)

// processTree is a tool and whatever it starts, in a process group of its
// own, so that what the tool leaves running (and holding its output pipe)
// is ended with it.
type processTree struct{ pgid int }

func startTree(cmd *exec.Cmd) (*processTree, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &processTree{pgid: cmd.Process.Pid}, nil
}

// end kills what is left of the group; cmd.Wait has returned.
func (t *processTree) end() { syscall.Kill(-t.pgid, syscall.SIGKILL) }
