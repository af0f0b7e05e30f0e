package snapshottest

import (
	"fmt"
	"os"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// Main runs a package's tests (call it from TestMain) and fails the package
// when any of them wrote a detail field of an endpoint that shares the
// empty detail (snapshot.Endpoint): that write would have reached every
// such endpoint of the run.
func Main(m *testing.M) {
	code := m.Run()
	if !snapshot.SharedDetailIntact() {
		fmt.Fprintln(os.Stderr, "FAIL: a test wrote the shared empty snapshot.EndpointDetail (write detail fields through Endpoint.Detail)")
		code = 1
	}
	os.Exit(code)
}
