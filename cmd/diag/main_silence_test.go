package main

import (
	"os"
	"testing"

	"github.com/wincni/diag/cluster"
)

// client-go logs the streams the cluster tests end on purpose: its lines
// would bury a real failure in the output.
func TestMain(m *testing.M) {
	cluster.SilenceClientLogs()
	os.Exit(m.Run())
}
