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
