//go:build !linux && !windows

package capture

import (
	"context"
	"io"
)

func liveCapture(context.Context, LiveOptions, io.Writer) (LiveStats, error) {
	return LiveStats{}, ErrLiveUnsupported
}
