//go:build linux

package capture

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/gopacket/gopacket/afpacket"
)

// liveCapture reads from AF_PACKET (no cgo, no libpcap) with a kernel filter
// for the VXLAN ports, and writes pcapng.
func liveCapture(ctx context.Context, opts LiveOptions, out io.Writer) (LiveStats, error) {
	stats := LiveStats{Tool: "AF_PACKET"}
	tp, err := openAFPacket(opts)
	if err != nil {
		return stats, err
	}
	defer tp.Close()
	return readAFPacket(ctx, tp, opts, out)
}

func openAFPacket(opts LiveOptions) (*afpacket.TPacket, error) {
	args := []any{afpacket.OptPollTimeout(200 * time.Millisecond), afpacket.OptFrameSize(65536), afpacket.OptBlockSize(1 << 20), afpacket.OptNumBlocks(16)}
	if opts.Interface != "" {
		args = append(args, afpacket.OptInterface(opts.Interface))
	}
	tp, err := afpacket.NewTPacket(args...)
	if err != nil {
		return nil, err
	}
	filter, err := vxlanFilter(opts.VXLANPorts)
	if err == nil {
		err = tp.SetBPF(filter)
	}
	if err != nil {
		tp.Close()
		return nil, err
	}
	return tp, nil
}

func readAFPacket(ctx context.Context, tp *afpacket.TPacket, opts LiveOptions, out io.Writer) (LiveStats, error) {
	stats := LiveStats{Tool: "AF_PACKET"}
	name := opts.Interface
	if name == "" {
		name = "any"
	}
	w, err := newNgWriter(out, name, LinkTypeEthernet, 65536, "diag capture start")
	if err != nil {
		return stats, err
	}
	deadline := time.Now().Add(opts.Duration)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		data, ci, err := tp.ZeroCopyReadPacketData()
		if errors.Is(err, afpacket.ErrTimeout) {
			continue
		}
		if err != nil {
			return stats, err
		}
		if err := w.WritePacket(ci.Timestamp, data, ci.Length); err != nil {
			return stats, err
		}
		stats.Packets++
	}
	return stats, w.Flush()
}
