package cluster

import (
	"os"
	"testing"
)

// The tests' streams end on purpose: what client-go would log of them is
// not wanted in the output, as in diag's.
func TestMain(m *testing.M) {
	SilenceClientLogs()
	os.Exit(m.Run())
}
