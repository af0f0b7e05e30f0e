package capture

import (
	"testing"

	"golang.org/x/net/bpf"

	"github.com/wincni/diag/gen"
)

// The kernel filter, run in x/net/bpf's VM: VXLAN on the ports passes,
// other traffic does not.
func TestVXLANFilter(t *testing.T) {
	raw, err := vxlanFilter([]uint16{4789, 8472})
	if err != nil {
		t.Fatal(err)
	}
	var prog []bpf.Instruction
	for _, r := range raw {
		prog = append(prog, r.Disassemble())
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	vx := healthy()[0]
	on8472 := vx
	on8472.DstPort = 8472
	other := vx
	other.DstPort = 53
	plain := vx
	plain.Plain = true
	for name, c := range map[string]struct {
		pkt  gen.Pkt
		pass bool
	}{
		"vxlan 4789": {vx, true}, "vxlan 8472": {on8472, true}, "udp 53": {other, false}, "tcp, unencapsulated": {plain, false},
	} {
		n, err := vm.Run(c.pkt.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if (n > 0) != c.pass {
			t.Errorf("%s: filter returned %d", name, n)
		}
	}
	// A later IPv4 fragment passes: it may be VXLAN.
	frag := vx.Bytes()
	frag[14+6], frag[14+7] = 0x00, 0xb9
	if n, _ := vm.Run(frag); n == 0 {
		t.Error("a non-first fragment was dropped")
	}
}
