//go:build linux

package capture

import (
	"os"
	"runtime/debug"
	"sync/atomic"
	"syscall"
)

// mapMinSize is the smallest capture worth mapping: below it the copy
// costs nothing worth a mapping.
const mapMinSize = 8 << 20

// mapFile maps a regular file read-only; nil when it cannot be (too small,
// not regular, the mapping refused).
func mapFile(f *os.File) []byte {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < mapMinSize || int64(int(st.Size())) != st.Size() {
		return nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	_ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	return data
}

func unmapFile(data []byte) { _ = syscall.Munmap(data) }

// releaseChunk is how far the reader moves between two calls of release
// that do something: each hand-back costs a TLB shootdown on every core
// the reader and the pager run on, so one per 4 MiB instead of one per
// batch (~400 KB) took a tenth off decoding 300k packets, for 4 MiB more
// of memory at most.
const releaseChunk = 4 << 20

// releaseLag bounds what the reader leaves to the pager to hand back: past
// it (a pager kept from running) the reader hands the pages back itself,
// so the mapping's resident part stays under pageAhead+releaseLag+
// releaseChunk whether the pager runs or not.
const releaseLag = 2 * releaseChunk

// release hands the pages of the mapping below end back to the kernel:
// they stay in the page cache, and out of this process's memory, which
// grows with the flows, not with the file. With a pager the pager does it
// beside the analysis (unmapping is a twentieth of decoding a large
// capture), unless it lags by more than releaseLag.
func (pb *pcapBlocks) release(end int64) {
	if pb.mapped == nil {
		return
	}
	page := int64(os.Getpagesize())
	end = end / page * page
	if end-pb.released < releaseChunk {
		return
	}
	pb.released = end
	if p := pb.pager; p != nil {
		p.post(end)
		if end-p.freed.Load() <= releaseLag {
			return
		}
	}
	freeBelow(pb.mapped, &pb.freed, end)
}

// freeBelow hands back the pages of data from the mark to end and raises
// the mark. The reader and the pager may both do it at once: handing back
// pages already handed back does nothing.
func freeBelow(data []byte, mark *atomic.Int64, end int64) {
	from := mark.Load()
	if end <= from {
		return
	}
	_ = syscall.Madvise(data[from:end], syscall.MADV_DONTNEED)
	for {
		m := mark.Load()
		if m >= end || mark.CompareAndSwap(m, end) {
			return
		}
	}
}

// pageAhead is how far ahead of the reader the pager faults the mapping
// in; it is told where the reader is every releaseChunk, so it keeps 4 to
// 8 MiB ahead.
const pageAhead = 8 << 20

// faultAround is the span one page fault maps in (the kernel's
// fault_around_bytes, 64 KiB by default): the pager touches a byte of each.
// Were the kernel's span smaller, the reader would fault the rest itself.
const faultAround = 64 << 10

// pager faults a mapped capture in ahead of the serial reader, in a
// goroutine of its own: with a core free, the page faults (a quarter of
// reading a mapped capture) and the hand-back of what the reader passed
// run beside the analysis instead of in it. It costs a wake-up every
// releaseChunk; with no core free it makes the faults the reader would
// have made, no more.
type pager struct {
	data  []byte
	freed *atomic.Int64 // below it the mapping is handed back (pcapBlocks.freed)
	at    atomic.Int64  // where the reader is: what it read below is done with
	// faulted: the pages from at to it are mapped (they may be handed
	// back when the reader passed them).
	faulted atomic.Int64
	wake    chan struct{} // the reader moved
	done    chan struct{}
	sink    byte // what the touches read: kept so that they are made
}

// mappedTo says up to where the pager has faulted the mapping in: the
// pages between the reader and it are mapped; 0 without a pager.
func (pb *pcapBlocks) mappedTo() int64 {
	if pb.pager == nil {
		return 0
	}
	return pb.pager.faulted.Load()
}

// pageStep is how much the pager faults in before it looks where the
// reader is: a pager that fell behind (kept from running) skips what the
// reader passed, so that it does not map released pages again.
const pageStep = 1 << 20

// startPager starts a pager from where the reader is.
func (pb *pcapBlocks) startPager() {
	if pb.mapped == nil || pb.pager != nil {
		return
	}
	p := &pager{data: pb.mapped, freed: &pb.freed, wake: make(chan struct{}, 1), done: make(chan struct{})}
	p.post(pb.released)
	go p.run()
	pb.pager = p
}

// stopPager ends the pager and waits for it: after it nothing touches the
// mapping, which can then be unmapped.
func (pb *pcapBlocks) stopPager() {
	if pb.pager == nil {
		return
	}
	close(pb.pager.wake)
	<-pb.pager.done
	pb.pager = nil
}

// post tells the pager where the reader is; it never waits.
func (p *pager) post(at int64) {
	p.at.Store(at)
	select {
	case p.wake <- struct{}{}:
	default: // a wake-up is pending
	}
}

func (p *pager) run() {
	defer close(p.done)
	size := int64(len(p.data))
	var next int64 // where the faults ahead end
	for range p.wake {
		for {
			at := p.at.Load()
			next = max(next, at)
			end := min(at+pageAhead, size)
			if next >= end {
				break
			}
			to := min(next+pageStep, end)
			if !p.touch(next, to) {
				// The file shrank: the reader meets the cut and notes
				// it; nothing is left to fault in.
				for range p.wake {
				}
				return
			}
			next = to
			p.faulted.Store(to)
		}
		// Ahead enough: hand back what the reader is done with.
		freeBelow(p.data, p.freed, p.at.Load())
	}
}

// touch loads a byte of each faultAround span of the mapping in [from, to);
// false when the file shrank under it.
func (p *pager) touch(from, to int64) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			ok = false
		}
	}()
	var t byte
	for i := from; i < to; i += faultAround {
		t += p.data[i]
	}
	p.sink += t
	return true
}
