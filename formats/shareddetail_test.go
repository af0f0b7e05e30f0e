package formats

import (
	"testing"

	"github.com/wincni/diag/snapshot/snapshottest"
)

// TestMain fails the package when any of its tests wrote the shared empty
// endpoint detail.
func TestMain(m *testing.M) { snapshottest.Main(m) }
