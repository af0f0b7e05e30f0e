//go:build unix

package realcluster

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in its own process group: stopping it stops what it
// started too.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

func alive(cmd *exec.Cmd) bool { return syscall.Kill(cmd.Process.Pid, 0) == nil }
