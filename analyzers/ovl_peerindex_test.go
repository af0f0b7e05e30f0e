package analyzers

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

// calicoCluster is the calico-healthy node grown to n Calico VXLAN peers:
// peer i has tunnel address 100.<64+i/1024>.<i/4%256>.<64*(i%4)+1> in its
// own /26 IPAM block, to which the overlay network has a RemoteSubnetRoute
// with the peer's VTEP MAC as DR MAC.
func calicoCluster(tb testing.TB, n int) *snapshot.Snapshot {
	tb.Helper()
	s := formatstest.Load(tb, healthy)
	nw, self := s.CNINetwork(), s.SelfKubeNode()
	if nw == nil || len(s.KubeNodes) != 2 || self == nil {
		tb.Fatal("calico-healthy lost its overlay network or its two nodes")
		return nil
	}
	s.KubeNodes = []*snapshot.KubeNode{self}
	nw.RemoteSubnetRoutes = nil
	for i := range n {
		block := netip.AddrFrom4([4]byte{100, byte(64 + i/1024), byte(i / 4 % 256), byte(64 * (i % 4))})
		tunnel := block.Next()
		mac := fmt.Sprintf("00:15:5d:%02x:%02x:%02x", i>>16&255, i>>8&255, i&255)
		pa := netip.AddrFrom4([4]byte{10, 20, byte(i / 250), byte(i%250 + 1)})
		s.KubeNodes = append(s.KubeNodes, &snapshot.KubeNode{
			Name:        fmt.Sprintf("calico-%04d", i),
			InternalIPs: []netip.Addr{pa},
			Annotations: snapshot.SortedPairs(
				snapshot.Pair{Key: snapshot.AnnotationCalicoVXLANAddr, Value: tunnel.String()},
				snapshot.Pair{Key: snapshot.AnnotationCalicoVXLANMAC, Value: mac},
				snapshot.Pair{Key: snapshot.AnnotationCalicoIPv4Address, Value: pa.String() + "/24"}),
		})
		nw.RemoteSubnetRoutes = append(nw.RemoteSubnetRoutes, snapshot.RemoteSubnetRoute{
			DestinationPrefix: netip.PrefixFrom(block, 26), ProviderAddress: pa, DrMAC: mac, IsolationID: 4096, Index: i})
	}
	return s
}

// OVL-05 and OVL-07 match each RemoteSubnetRoute to its peer; in a Calico
// cluster that is by the tunnel address inside the route's block.
func BenchmarkCalicoPeers(b *testing.B) {
	s := calicoCluster(b, scaleNodes())
	sel := Selection{Only: []string{"OVL-05", "OVL-07"}}
	for b.Loop() {
		if res := RunNode(s, sel); len(res.Findings) != 0 || len(res.Skipped) != 0 {
			b.Fatalf("healthy cluster: %v, skipped %v", summaries(res.Findings), res.Skipped)
		}
	}
}

// scanPeer is the search the index replaces, kept as its oracle: each
// Calico node in order, its tunnel address parsed per route.
func scanPeer(idx *peerIndex, r snapshot.RemoteSubnetRoute) *snapshot.KubeNode {
	if k := idx.byCIDR[r.DestinationPrefix]; k != nil {
		return k
	}
	for _, c := range idx.calico {
		if r.DestinationPrefix.Contains(c.node.CalicoVXLANTunnelAddr()) {
			return c.node
		}
	}
	return nil
}

func TestPeerIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	addr := func() string {
		switch rng.IntN(10) {
		case 0:
			return fmt.Sprintf("fd00::%x", rng.IntN(64))
		case 1:
			return fmt.Sprintf("fe80::%x%%eth0", rng.IntN(64)) // zoned: in no prefix
		case 2:
			return "" // no tunnel address: not a Calico peer
		}
		return fmt.Sprintf("100.64.%d.%d", rng.IntN(2), rng.IntN(256))
	}
	prefix := func() netip.Prefix {
		switch rng.IntN(12) {
		case 0:
			return netip.Prefix{}
		case 1:
			net := []string{"fd00", "fe80"}[rng.IntN(2)]
			return netip.PrefixFrom(netip.MustParseAddr(fmt.Sprintf("%s::%x", net, rng.IntN(64))), 118+rng.IntN(11))
		case 2:
			return netip.MustParsePrefix("0.0.0.0/0")
		}
		return netip.PrefixFrom(netip.AddrFrom4([4]byte{100, 64, byte(rng.IntN(2)), byte(rng.IntN(256))}), 20+rng.IntN(13))
	}
	s := formatstest.Load(t, healthy)
	nw := s.CNINetwork()
	byBlock, none := 0, 0
	for round := range 50 {
		s.KubeNodes = []*snapshot.KubeNode{s.SelfKubeNode()}
		for i := range rng.IntN(60) {
			k := &snapshot.KubeNode{Name: fmt.Sprintf("n%d", i)}
			if a := addr(); a != "" {
				k.Annotations = snapshot.SortedPairs(snapshot.Pair{Key: snapshot.AnnotationCalicoVXLANAddr, Value: a})
			}
			if rng.IntN(4) == 0 {
				k.PodCIDRs = []netip.Prefix{prefix()}
			}
			s.KubeNodes = append(s.KubeNodes, k)
		}
		idx := newPeerIndex(s, nw)
		for range 300 {
			r := snapshot.RemoteSubnetRoute{DestinationPrefix: prefix()}
			got, want := idx.peer(r), scanPeer(idx, r)
			if got != want {
				t.Fatalf("round %d: peer(%v) = %v, the scan says %v", round, r.DestinationPrefix, nodeName(got), nodeName(want))
			}
			switch {
			case want == nil:
				none++
			case idx.byCIDR[r.DestinationPrefix] == nil:
				byBlock++
			}
		}
	}
	if byBlock < 100 || none < 100 {
		t.Errorf("the random cases found %d peers by tunnel address and %d routes without one: too few to compare", byBlock, none)
	}
}

func nodeName(k *snapshot.KubeNode) string {
	if k == nil {
		return "none"
	}
	return k.Name
}

// The Calico branch of OVL-05 and OVL-07, firing and silent.
func TestCalicoPeersRules(t *testing.T) {
	run := func(s *snapshot.Snapshot, id string) []string {
		res := RunNode(s, Selection{Only: []string{id}})
		if len(res.Skipped) > 0 {
			t.Fatalf("%s skipped: %v", id, res.Skipped)
		}
		return summaries(findingsFor(res, id))
	}
	s := calicoCluster(t, 40)
	for _, id := range []string{"OVL-05", "OVL-07"} {
		if got := run(s, id); len(got) != 0 {
			t.Errorf("%s on a healthy Calico cluster: %v", id, got)
		}
	}
	nw := s.CNINetwork()
	// Node calico-0007 got a new VTEP MAC; its route still sends to the old one.
	nw.RemoteSubnetRoutes[7].DrMAC = "00:15:5d:ee:ee:ee"
	want := "RemoteSubnetRoute 100.64.1.192/26 on network Calico sends to DR MAC 00:15:5d:ee:ee:ee, but node calico-0007 publishes 00:15:5d:00:00:07"
	if got := run(s, "OVL-05"); len(got) != 1 || got[0] != "fail: "+want {
		t.Errorf("OVL-05 = %q, want %q", got, want)
	}
	// A block of a node that left (its ProviderAddress is no node's), and
	// a second block of a current node (owned through its address).
	nw.RemoteSubnetRoutes = append(nw.RemoteSubnetRoutes,
		snapshot.RemoteSubnetRoute{DestinationPrefix: netip.MustParsePrefix("100.99.0.0/26"), ProviderAddress: netip.MustParseAddr("10.20.99.1"), Index: 40},
		snapshot.RemoteSubnetRoute{DestinationPrefix: netip.MustParsePrefix("100.99.1.0/26"), ProviderAddress: netip.MustParseAddr("10.20.0.8"), Index: 41})
	want = "RemoteSubnetRoute 100.99.0.0/26 (to 10.20.99.1) on network Calico belongs to no current node: a stale route"
	if got := run(s, "OVL-07"); len(got) != 1 || got[0] != "warn: "+want {
		t.Errorf("OVL-07 = %q, want %q", got, want)
	}
}
