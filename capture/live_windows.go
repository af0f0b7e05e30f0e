//go:build windows

package capture

import (
	"context"
	"io"

	"github.com/wincni/diag/hostexec"
)

// liveCapture drives pktmon.
func liveCapture(ctx context.Context, opts LiveOptions, out io.Writer) (LiveStats, error) {
	r := opts.Runner
	if r == nil {
		r = hostexec.Exec{Combined: true}
	}
	return pktmonCapture(ctx, r, opts, out)
}
