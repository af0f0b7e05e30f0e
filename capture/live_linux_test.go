//go:build linux

package capture

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/vishvananda/netns"
)

// TestLiveCaptureBetweenNamespaces builds two network namespaces joined by
// a veth pair, a VXLAN device (VNI 4096, port 4789) in each, sends traffic
// from one pod address to the other, captures it with AF_PACKET in the
// first namespace and decodes the capture. Root only.
func TestLiveCaptureBetweenNamespaces(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (network namespaces, AF_PACKET)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2)")
	}
	id := os.Getpid() % 100000
	nsA, nsB := fmt.Sprintf("diag-a-%d", id), fmt.Sprintf("diag-b-%d", id)
	vethA, vethB := fmt.Sprintf("dva%d", id), fmt.Sprintf("dvb%d", id)
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	ip("netns", "add", nsA)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", nsA).Run() })
	ip("netns", "add", nsB)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", nsB).Run() })
	ip("link", "add", vethA, "type", "veth", "peer", "name", vethB)
	ip("link", "set", vethA, "netns", nsA)
	ip("link", "set", vethB, "netns", nsB)
	for _, side := range []struct{ ns, veth, under, pod, remote string }{
		{nsA, vethA, "10.199.0.1/24", "10.244.77.1/24", "10.199.0.2"},
		{nsB, vethB, "10.199.0.2/24", "10.244.77.2/24", "10.199.0.1"},
	} {
		ip("-n", side.ns, "link", "set", "lo", "up")
		ip("-n", side.ns, "addr", "add", side.under, "dev", side.veth)
		ip("-n", side.ns, "link", "set", side.veth, "up")
		ip("-n", side.ns, "link", "add", "vxlan0", "type", "vxlan", "id", "4096", "dstport", "4789",
			"local", side.under[:len(side.under)-3], "remote", side.remote, "dev", side.veth)
		ip("-n", side.ns, "addr", "add", side.pod, "dev", "vxlan0")
		ip("-n", side.ns, "link", "set", "vxlan0", "up")
	}

	// Open the capture inside namespace A; the socket stays there.
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	handleA, err := netns.GetFromName(nsA)
	if err != nil {
		t.Fatal(err)
	}
	if err := netns.Set(handleA); err != nil {
		t.Fatal(err)
	}
	opts := LiveOptions{Duration: 2 * time.Second, Interface: vethA, VXLANPorts: []uint16{4789}}
	tp, err := openAFPacket(opts)
	// Send pod traffic from A while we are in it: ARP and UDP over vxlan0.
	if err == nil {
		if c, derr := net.Dial("udp", "10.244.77.2:9999"); derr == nil {
			go func() {
				for i := 0; i < 5; i++ {
					c.Write([]byte("diag"))
					time.Sleep(100 * time.Millisecond)
				}
				c.Close()
			}()
		}
	}
	netns.Set(orig)
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()

	var buf bytes.Buffer
	stats, err := readAFPacket(context.Background(), tp, opts, &buf)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(bytes.NewReader(buf.Bytes()), "live.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAnalyzer(Options{ExpectedVNI: 4096})
	if err := a.ReadSource(src, "live.pcapng"); err != nil {
		t.Fatal(err)
	}
	r := a.Finish("live")
	t.Logf("captured %d packets, %d VXLAN, tunnels %+v", stats.Packets, r.VXLANPackets, r.Tunnels)
	if r.VXLANPackets == 0 {
		t.Fatalf("captured %d packets, no VXLAN", r.Packets)
	}
	// The kernel filter passes UDP to the VXLAN port only: every packet
	// written is one (the analyzer's own counts may differ: packets the
	// vxlan device queued during ARP and sent together can be copies).
	ng, err := pcapgo.NewNgReader(bytes.NewReader(buf.Bytes()), pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		data, _, err := ng.ReadPacketData()
		if err != nil {
			break
		}
		pkt := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
		udp, _ := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP)
		if udp == nil || udp.DstPort != 4789 {
			t.Errorf("packet %d passed the kernel filter but is not UDP to 4789: %v", i, pkt)
		}
	}
	for _, tun := range r.Tunnels {
		if tun.VNI != 4096 || tun.Src.String() != "10.199.0.1" && tun.Src.String() != "10.199.0.2" {
			t.Errorf("tunnel %+v", tun)
		}
	}
}
