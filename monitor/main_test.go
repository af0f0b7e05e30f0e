package monitor

import (
	"os"
	"testing"

	"github.com/wincni/diag/cluster"
)

// TestMain silences client-go's logs once, before any watch runs: the
// monitor's command does so too, and setting them while a watch of an
// earlier test still winds down would race with it.
func TestMain(m *testing.M) {
	cluster.SilenceClientLogs()
	os.Exit(m.Run())
}
