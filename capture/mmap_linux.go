//go:build linux

package capture

import (
	"os"
	"runtime/debug"
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

// releaseChunk is how much of the mapping release hands back at once: each
// call costs a TLB shootdown on every core the reader and the analyzer
// run on, so one per 4 MiB instead of one per batch (~400 KB) took a tenth
// off decoding 300k packets, for 4 MiB more of memory at most.
const releaseChunk = 4 << 20

// release hands the pages of the mapping below end back to the kernel:
// they stay in the page cache, and out of this process's memory, which
// grows with the flows, not with the file. With a pager, the pager does it.
func (pb *pcapBlocks) release(end int64) {
	if pb.mapped == nil {
		return
	}
	page := int64(os.Getpagesize())
	end = end / page * page
	if end-pb.released < releaseChunk {
		return
	}
	if pb.pager != nil {
		pb.pager.post(end)
	} else {
		_ = syscall.Madvise(pb.mapped[pb.released:end], syscall.MADV_DONTNEED)
	}
	pb.released = end
}

// pageAhead is how far ahead of the reader the pager faults the mapping
// in; it is told where the reader is every releaseChunk, so it keeps 4 to
// 8 MiB ahead.
const pageAhead = 8 << 20

// faultAround is the span one page fault maps in (the kernel's
// fault_around_bytes, 64 KiB by default): the pager touches a byte of each.
// Were the kernel's span smaller, the reader would fault the rest itself.
const faultAround = 64 << 10

// pager faults a mapped capture in ahead of the serial reader and hands
// back the pages behind it, in a goroutine of its own: with a core free,
// the page faults (a third of reading a mapped capture) and the unmapping
// run beside the analysis instead of in it. It costs a wake-up every
// releaseChunk; with no core free it does the faults the reader would
// have made, no more.
type pager struct {
	data []byte
	pos  chan int64 // where the reader is: everything below is analyzed
	done chan struct{}
	sink byte // what the touches read: kept so that they are made
}

// startPager starts a pager for a mapped capture read from from on.
func (pb *pcapBlocks) startPager() {
	if pb.mapped == nil || pb.pager != nil {
		return
	}
	p := &pager{data: pb.mapped, pos: make(chan int64, 1), done: make(chan struct{})}
	go p.run(pb.released)
	p.post(pb.released)
	pb.pager = p
}

// stopPager ends the pager and waits for it: after it nothing touches the
// mapping, which can then be unmapped.
func (pb *pcapBlocks) stopPager() {
	if pb.pager == nil {
		return
	}
	close(pb.pager.pos)
	<-pb.pager.done
	pb.pager = nil
}

// post tells the pager where the reader is; it never waits: a position
// the pager has not taken yet is replaced.
func (p *pager) post(at int64) {
	for {
		select {
		case p.pos <- at:
			return
		default:
		}
		select {
		case <-p.pos:
		default:
		}
	}
}

func (p *pager) run(from int64) {
	defer close(p.done)
	size := int64(len(p.data))
	released, ahead, faulted := from, from, false
	for at := range p.pos {
		if at > released {
			_ = syscall.Madvise(p.data[released:at], syscall.MADV_DONTNEED)
			released = at
		}
		if !faulted && ahead < min(at+pageAhead, size) {
			to := min(at+pageAhead, size)
			faulted = !p.touch(ahead, to)
			ahead = to
		}
	}
}

// touch loads a byte of each faultAround span of the mapping in [from, to);
// false when the file shrank under it (the reader then meets the cut and
// notes it).
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
