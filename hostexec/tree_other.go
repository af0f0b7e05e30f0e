//go:build !unix && !windows

package hostexec

import "os/exec"

// processTree: no process groups or jobs here; the tool alone is ended.
type processTree struct{}

func startTree(cmd *exec.Cmd) (*processTree, error) { return &processTree{}, cmd.Start() }

func (*processTree) end() {}
