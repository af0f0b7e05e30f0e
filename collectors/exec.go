package collectors

import "github.com/wincni/diag/hostexec"

// Runner runs the node's tools; collectors reach them only through it.
type Runner = hostexec.Runner

// ExecRunner runs them with os/exec: standard output returned, the first
// line of standard error in a failure's error.
type ExecRunner = hostexec.Exec
