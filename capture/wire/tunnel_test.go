package wire

import "testing"

func TestTunnelOf(t *testing.T) {
	var vxlan Ports
	vxlan.Add(PortVXLAN)
	vxlan.Add(65535)
	for _, c := range []struct {
		sport, dport uint16
		want         Tunnel
	}{
		{49152, PortVXLAN, TunnelVXLAN},
		{PortVXLAN, 49152, TunnelVXLAN}, // a reply, by its source port
		{49152, 65535, TunnelVXLAN},     // a port given, at the end of the bitmap
		{49152, PortVXLANLinux, TunnelNone},
		{49152, PortGeneve, TunnelGeneve},
		{49152, PortGPE, TunnelGPE},
		{PortGeneve, PortVXLAN, TunnelVXLAN}, // the destination decides first
		{53, 49152, TunnelNone},
	} {
		if got := TunnelOf(c.sport, c.dport, &vxlan); got != c.want {
			t.Errorf("TunnelOf(%d, %d) = %d, want %d", c.sport, c.dport, got, c.want)
		}
	}
	if vxlan.Has(0) || !vxlan.Has(65535) {
		t.Error("Ports holds what was not added, or lost what was")
	}
}
