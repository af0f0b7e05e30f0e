//go:build !linux

package capture

import "os"

// Captures are read, not mapped, off Linux (a mapping is not worth a second implementation).
func mapFile(*os.File) []byte { return nil }

func unmapFile([]byte) {}

// release only moves the mark: nothing is mapped here.
func (pb *pcapBlocks) release(end int64) {
	pb.released = max(pb.released, end)
	pb.freed.Store(pb.released)
}

// pager: nothing is mapped here, so there is nothing to fault in.
type pager struct{}

func (pb *pcapBlocks) startPager() { pb.pager = nil }

func (pb *pcapBlocks) mappedTo() int64 { return 0 }
func (pb *pcapBlocks) stopPager()      { pb.pager = nil }
