//go:build !unix

package capture

import "os"

// Captures are read, not mapped, where syscall has no Mmap.
func mapFile(*os.File) []byte { return nil }

func unmapFile([]byte) {}

// release only moves the mark: nothing is mapped here.
func (pb *pcapBlocks) release(end int64) { pb.released = max(pb.released, end) }
