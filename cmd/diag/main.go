// Command diag finds out why pod and service networking is broken on a
// Windows Kubernetes node. This package is thin: it parses flags, calls the
// packages below it and maps errors to exit codes.
//
// Imports: any (the command line is the top of the graph).
package main

import (
	"os"
	"runtime"
)

func main() {
	// Nothing here reads heap profiles, and the runtime's sampling of
	// allocations for them kept 1.4 MB of records analyzing a large
	// cluster's bundle.
	runtime.MemProfileRate = 0
	os.Exit(run(os.Args[1:], newEnv()))
}
