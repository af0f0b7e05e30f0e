//go:build !amd64 && !arm64

package capture

import "unsafe"

// canPrefetch: prefetchLines does nothing.
const canPrefetch = false

// prefetchLines does nothing without assembly for it: the lines are loaded
// when fill touches them, as they would be without it.
func prefetchLines(unsafe.Pointer, uintptr) {}
