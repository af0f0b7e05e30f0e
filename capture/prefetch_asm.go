//go:build amd64 || arm64

package capture

import "unsafe"

// canPrefetch: prefetchLines loads the lines.
const canPrefetch = true

// prefetchLines asks for the cache lines of the n bytes at p to be loaded
// (PREFETCHT0, PRFM PLDL1KEEP) without waiting for them: unlike a load, a
// prefetch holds nothing up, and one of a page not mapped (yet, or any
// more: a file cut under the mapping) is dropped, never faulted.
//
//go:noescape
func prefetchLines(p unsafe.Pointer, n uintptr)
