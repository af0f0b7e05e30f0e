package formats

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// FuzzCalicoIPAM feeds the Calico IPAM parsers (IPAMConfigs, BlockAffinities,
// IPAMBlocks, as kubectl get -o json lists them) anything: none may panic,
// what they return keeps its invariants, and the streaming reader the loader
// uses for the blocks gives what the whole-file parser gives.
func FuzzCalicoIPAM(f *testing.F) {
	for _, b := range []string{"seed-broken", "seed-fixed"} {
		fixtureSeeds(f, "bundles/"+b+"/k8s/calico-*.json")
	}
	for _, s := range []string{
		// An allocation index past the attributes, a negative and a fractional one,
		// attributes without a node, an allocation that is not a number.
		`{"items":[{"spec":{"cidr":"10.0.0.0/30","affinity":"host:n1","allocations":[0,5,-1,1.5,null,"x",1],"attributes":[{"secondary":{"node":"n2"}},{}]}}]}`,
		// IPv6 blocks (the size is capped), a /0, a bad CIDR, a bare object.
		`[{"spec":{"cidr":"fd00::/64","allocations":[0]}},{"spec":{"cidr":"::/0"}},{"spec":{"cidr":"10.0.0.0/33"}}]`,
		`{"spec":{"cidr":"10.0.0.0/26","affinity":"host:","allocations":{"0":1}}}`,
		// Affinities: deleted, without node or CIDR, a state.
		`{"items":[{"spec":{"node":"n1","cidr":"10.0.0.0/26","state":"confirmed"}},{"spec":{"node":"n2","cidr":"10.0.1.0/26","deleted":true}},{"spec":{"cidr":"10.0.2.0/26"}},{"spec":{"node":"n3","cidr":"x"}}]}`,
		`{"items":[{"spec":{"node":"n1","cidr":"10.0.0.0/26","deleted":"true"}}]}`,
		// IPAMConfigs: another name first, the default without the field, a string value.
		`{"items":[{"metadata":{"name":"other"},"spec":{"strictAffinity":true}},{"metadata":{"name":"default"},"spec":{}}]}`,
		`[{"spec":{"strictAffinity":"true"}}]`,
		`{"kind":"List","items":null}`,
		"\xFF\xFE[\x00]\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseCalicoIPAMConfigs(data)

		affinities, _ := ParseCalicoBlockAffinities(data)
		for _, a := range affinities {
			if a.Node == "" || !a.CIDR.IsValid() {
				t.Errorf("affinity %+v kept without a node or a CIDR", a)
			}
		}

		blocks, err := ParseCalicoIPAMBlocks(data)
		for _, b := range blocks {
			if b == nil || !b.CIDR.IsValid() {
				t.Fatalf("block %+v kept without a valid CIDR", b)
			}
			if n := b.Size(); n < 1 || n > 1<<30 {
				t.Errorf("block %s: size %d", b.CIDR, n)
			}
			pods := 0
			for node, n := range b.PodNodes {
				if node == "" || n <= 0 {
					t.Errorf("block %s: %d pods on node %q", b.CIDR, n, node)
				}
				pods += n
			}
			if b.Allocated < 0 || pods > b.Allocated {
				t.Errorf("block %s: %d allocated, %d to pods of known nodes", b.CIDR, b.Allocated, pods)
			}
		}

		// The loader streams the blocks file and falls back to the whole-file
		// parser when the stream reader refuses it; both must agree.
		streamed, serr := parseEachReader(bytes.NewReader(data), func(o obj, _ int) *snapshot.CalicoBlock { return calicoBlockOf(o) })
		if serr != nil {
			return
		}
		if err != nil {
			t.Fatalf("ParseCalicoIPAMBlocks rejects %q (%v), the stream reader accepts it", data, err)
		}
		if (len(streamed) > 0 || len(blocks) > 0) && !reflect.DeepEqual(streamed, blocks) {
			t.Fatalf("%q: streamed %+v, whole %+v", data, streamed, blocks)
		}
	})
}
