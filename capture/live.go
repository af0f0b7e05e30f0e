package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/net/bpf"
)

// LiveOptions says what to capture live.
type LiveOptions struct {
	Duration   time.Duration
	Interface  string   // Linux: one interface; empty means every interface
	VXLANPorts []uint16 // default 4789
	Runner     Runner   // Windows: runs pktmon (tests give a fake)
	TempDir    string   // Windows: where pktmon's files go while it runs
	// ETLFile, on Windows, is where pktmon writes its own capture (an ETL
	// file, with what the pcapng conversion leaves out), kept for the
	// caller; empty: a temporary file, removed.
	ETLFile string
	// Abort, when it ends, ends pktmon's stop and conversion, which go on
	// after ctx ended to keep what was captured (a second Ctrl-C); nil:
	// only their time limit ends them.
	Abort context.Context
}

// LiveStats says what a live capture got.
type LiveStats struct {
	Packets int64
	Tool    string // "AF_PACKET" or "pktmon"
}

// ErrLiveUnsupported is returned where no live capture method exists.
var ErrLiveUnsupported = errors.New("live capture is supported on Linux (AF_PACKET) and Windows (pktmon) only")

// Live captures VXLAN traffic for opts.Duration (or until ctx ends) and
// writes it to out as pcapng.
func Live(ctx context.Context, opts LiveOptions, out io.Writer) (LiveStats, error) {
	if len(opts.VXLANPorts) == 0 {
		opts.VXLANPorts = []uint16{4789}
	}
	if opts.Duration <= 0 {
		return LiveStats{}, fmt.Errorf("capture duration must be positive")
	}
	return liveCapture(ctx, opts, out)
}

// vxlanFilter is a classic BPF program accepting, on Ethernet, UDP to any
// of the ports over IPv4 or IPv6, and IPv4 fragments after the first (they
// carry no UDP header but may be VXLAN: CAP-05 wants them).
func vxlanFilter(ports []uint16) ([]bpf.RawInstruction, error) {
	n := uint8(len(ports))
	const ports0 = 13 // index of the first port comparison
	drop, accept := ports0+n, ports0+n+1
	skip := func(from, to uint8) uint8 { return to - from - 1 }
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 12, Size: 2}, // 0: EtherType
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x0800, SkipFalse: skip(1, 9)},
		bpf.LoadAbsolute{Off: 23, Size: 1}, // 2: IPv4 protocol
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 17, SkipFalse: skip(3, drop)},
		bpf.LoadAbsolute{Off: 20, Size: 2}, // 4: flags and fragment offset
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x1fff, SkipTrue: skip(5, accept)},
		bpf.LoadMemShift{Off: 14},          // 6: X = IPv4 header length
		bpf.LoadIndirect{Off: 16, Size: 2}, // 7: UDP destination port
		bpf.Jump{Skip: uint32(skip(8, ports0))},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x86dd, SkipFalse: skip(9, drop)}, // 9: IPv6?
		bpf.LoadAbsolute{Off: 20, Size: 1},                                     // 10: next header
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 17, SkipFalse: skip(11, drop)},
		bpf.LoadAbsolute{Off: 56, Size: 2}, // 12: UDP destination port after the fixed header
	}
	for i, p := range ports {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(p), SkipTrue: skip(ports0+uint8(i), accept)})
	}
	prog = append(prog, bpf.RetConstant{Val: 0}, bpf.RetConstant{Val: 262144})
	return bpf.Assemble(prog)
}
