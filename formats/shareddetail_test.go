package formats

import (
	"fmt"
	"os"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// TestMain fails the package when any of its tests wrote a detail field of
// an endpoint that shares the empty detail (snapshot.Endpoint): that write
// would have reached every such endpoint of the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if !snapshot.SharedDetailIntact() {
		fmt.Fprintln(os.Stderr, "FAIL: a test wrote the shared empty snapshot.EndpointDetail (write detail fields through Endpoint.Detail)")
		code = 1
	}
	os.Exit(code)
}
