package capture

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/wincni/diag/capture/wire"
	"github.com/wincni/diag/gen"
)

// fastFrames are frames for comparing the fast path with the general one:
// the benchmark's capture, the scenarios', every corpus file's, and each
// cut at several lengths and with its length fields bent.
func fastFrames(t testing.TB) [][]byte {
	var out [][]byte
	var buf bytes.Buffer
	if err := gen.WriteBenchCapture(&buf, 400, 20); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()[24:]
	for len(b) >= 16 {
		n := int(binary.LittleEndian.Uint32(b[8:]))
		out = append(out, b[16:16+n])
		b = b[16+n:]
	}
	for _, p := range healthy() {
		out = append(out, p.Bytes())
	}
	for _, cf := range corpus() {
		if cf.lt != 0 {
			continue
		}
		for _, p := range cf.pkts {
			out = append(out, p.data)
		}
	}
	base := len(out)
	for _, f := range out[:base] {
		for _, cut := range []int{len(f) - 1, 100, 90, 88, 86, 84, 80, 60} {
			if cut > 0 && cut < len(f) {
				out = append(out, f[:cut])
			}
		}
		for _, at := range []int{16, 38, 66, 88} { // outer and inner IP lengths, UDP lengths
			if at+2 <= len(f) {
				for _, v := range []uint16{0, 19, 20, 28, 60, 65535} {
					g := append([]byte(nil), f...)
					binary.BigEndian.PutUint16(g[at:], v)
					out = append(out, g)
				}
			}
		}
	}
	return out
}

// The fast path leaves a frame exactly as the general path does, and
// takes the bulk of overlay traffic.
func TestDecodeFastMatchesGeneral(t *testing.T) {
	var ports wire.Ports
	ports.Add(4789)
	ports.Add(8472)
	fast := 0
	frames := fastFrames(t)
	for i, data := range frames {
		for _, wire := range []int{len(data), len(data) + 100} {
			var got, want frame
			decode(&got, data, wire, LinkTypeEthernet, &ports)
			want = frame{truncated: len(data) < wire}
			decodeGeneral(&want, data, LinkTypeEthernet, &ports)
			if got != want {
				t.Fatalf("frame %d (% x): fast path\n%+v\ngeneral path\n%+v", i, data, got, want)
			}
			var probe frame
			probe.truncated = len(data) < wire
			if decodeFast(&probe, data, &ports) {
				fast++
			}
		}
	}
	t.Logf("the fast path took %d of %d frames", fast, 2*len(frames))
	if fast < len(frames)/4 {
		t.Errorf("the fast path took %d of %d frames", fast, 2*len(frames))
	}
}

// FuzzDecodeFast: on any bytes the fast path and the general path agree.
func FuzzDecodeFast(f *testing.F) {
	for _, d := range fastFrames(f)[:200] {
		f.Add(d, uint16(0))
	}
	var ports wire.Ports
	ports.Add(4789)
	f.Fuzz(func(t *testing.T, data []byte, extra uint16) {
		wire := len(data) + int(extra%4)
		var got, want frame
		decode(&got, data, wire, LinkTypeEthernet, &ports)
		want = frame{truncated: len(data) < wire}
		decodeGeneral(&want, data, LinkType(layers.LinkTypeEthernet), &ports)
		if got != want {
			t.Fatalf("fast path\n%+v\ngeneral path\n%+v", got, want)
		}
	})
}

// The 20-byte header sum agrees with checksum on every header the frames
// hold and on bent ones.
func TestIPv4HeaderSum(t *testing.T) {
	for _, f := range fastFrames(t) {
		for _, at := range []int{14, 64} {
			if at+20 > len(f) {
				continue
			}
			h := append([]byte(nil), f[at:at+20]...)
			for i := 0; i < 21; i++ {
				if got, want := ipv4HeaderSumOK(h), checksum(h, 0) == 0; got != want {
					t.Fatalf("% x: %v, checksum says %v", h, got, want)
				}
				if i < 20 {
					h[i] ^= byte(0x11 * (i + 1))
				}
			}
		}
	}
	zero := make([]byte, 20)
	if ipv4HeaderSumOK(zero) != (checksum(zero, 0) == 0) {
		t.Error("all-zero header")
	}
}

// isV4 and v4 read IPv4-mapped addresses as netip does.
func TestIsV4(t *testing.T) {
	for _, s := range []string{"10.244.1.5", "0.0.0.0", "255.255.255.255", "::ffff:0:1", "::1", "2001:db8::1", "::", "::fffe:a00:1", "ff00::ffff:a00:1", "0:0:0:1::ffff:a00:1"} {
		a := netip.MustParseAddr(s)
		b := a.As16()
		if got, want := isV4(&b), a.Unmap().Is4(); got != want {
			t.Errorf("%s: isV4 %v, want %v", s, got, want)
		}
		if a.Unmap().Is4() && v4(&b) != uint64(binary.BigEndian.Uint32(a.Unmap().AsSlice())) {
			t.Errorf("%s: v4 %x", s, v4(&b))
		}
	}
}
