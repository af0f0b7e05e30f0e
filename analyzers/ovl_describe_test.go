package analyzers

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// OVL-02's evidence lists a network's routes up to routesShown, then says
// how many more: each of its findings carries the list.
func TestDescribeRoutesIsBounded(t *testing.T) {
	n := &snapshot.Network{}
	for i := range 3 {
		n.RemoteSubnetRoutes = append(n.RemoteSubnetRoutes, snapshot.RemoteSubnetRoute{
			DestinationPrefix: netip.MustParsePrefix(fmt.Sprintf("10.244.%d.0/24", i)), ProviderAddress: netip.MustParseAddr(fmt.Sprintf("10.0.0.%d", i+4))})
	}
	if got, want := describeRoutes(n), "10.244.0.0/24 via 10.0.0.4, 10.244.1.0/24 via 10.0.0.5, 10.244.2.0/24 via 10.0.0.6"; got != want {
		t.Errorf("3 routes: %q, want %q", got, want)
	}
	for i := 3; i < 25; i++ {
		n.RemoteSubnetRoutes = append(n.RemoteSubnetRoutes, snapshot.RemoteSubnetRoute{DestinationPrefix: netip.MustParsePrefix(fmt.Sprintf("10.244.%d.0/24", i))})
	}
	got := describeRoutes(n)
	if strings.Count(got, " via ") != routesShown || !strings.HasSuffix(got, ", and 15 more") || !strings.HasPrefix(got, "10.244.0.0/24 via 10.0.0.4, ") {
		t.Errorf("25 routes: %q", got)
	}
	if describeRoutes(&snapshot.Network{}) != "none" {
		t.Error("a network without routes")
	}
}
