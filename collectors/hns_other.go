//go:build !windows

package collectors

import "fmt"

// NewHNSSource: HNS exists on Windows only.
func NewHNSSource() (HNSSource, error) {
	return nil, fmt.Errorf("HNS: %w", ErrUnsupported)
}
