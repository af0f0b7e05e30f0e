//go:build !unix

package realcluster

import "os/exec"

// The control plane runs on Linux; elsewhere a process is only killed.
func ownGroup(*exec.Cmd) {}

func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func alive(cmd *exec.Cmd) bool { return cmd.ProcessState == nil }
