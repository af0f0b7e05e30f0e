//go:build windows

package capture

import (
	"context"
	"io"
)

// liveCapture drives pktmon.
func liveCapture(ctx context.Context, opts LiveOptions, out io.Writer) (LiveStats, error) {
	r := opts.Runner
	if r == nil {
		r = ExecRunner{}
	}
	return pktmonCapture(ctx, r, opts, out)
}
