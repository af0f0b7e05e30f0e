//go:build windows

package capture

import (
	"context"
	"io"
)

// liveCapture drives pktmon, which writes the pcapng itself.
func liveCapture(ctx context.Context, opts LiveOptions, _ io.Writer, outPath string) (LiveStats, error) {
	r := opts.Runner
	if r == nil {
		r = ExecRunner{}
	}
	return pktmonCapture(ctx, r, opts, outPath)
}
