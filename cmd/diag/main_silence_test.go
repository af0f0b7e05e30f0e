package main

import (
	"os"
	"runtime"
	"testing"

	"github.com/wincni/diag/cluster"
)

// client-go logs the streams the cluster tests end on purpose: its lines
// would bury a real failure in the output.
func TestMain(m *testing.M) {
	cluster.SilenceClientLogs()
	os.Exit(m.Run())
}

// notExistWords is how the system says a file is missing: Windows words
// it its own way.
var notExistWords = map[bool]string{true: "not found", false: "no such file"}[runtime.GOOS == "windows"]
