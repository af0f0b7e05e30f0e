package etl

import (
	"container/heap"
	"sort"
)

// Events are put back in time order by merging buffers. ETW fills one
// buffer per processor, and a file holds buffers in the order they were
// flushed: a processor's buffer can come after later events of another.
// The reader keeps whole inflated buffers (up to Limits.ReorderBytes,
// plus the one being read), each with an index of its packet events
// sorted by time (they nearly always are already), and passes on the
// earliest head of all: a k-way merge over a bounded window of buffers,
// with no copy of any packet. An event in a buffer that comes into the
// window after a later event was passed on is passed on out of order,
// and counted.

// bufStream is one held buffer and its packet events.
type bufStream struct {
	data []byte
	idx  []evRef
	pos  int
	seq  int // the buffer's place in the file, for ties
	proc uint16
}

// evRef is a packet event of a buffer: its record, and time.
type evRef struct {
	at, size int32
	ts       int64
}

// sortIndex orders a buffer's events by time, keeping file order among
// equal times.
func (s *bufStream) sortIndex() {
	for i := 1; i < len(s.idx); i++ {
		if s.idx[i].ts < s.idx[i-1].ts {
			sort.SliceStable(s.idx, func(a, b int) bool { return s.idx[a].ts < s.idx[b].ts })
			return
		}
	}
}

// streams is a heap of held buffers by the time of their next event.
type streams []*bufStream

func (h streams) Len() int { return len(h) }
func (h streams) Less(i, j int) bool {
	a, b := h[i].idx[h[i].pos].ts, h[j].idx[h[j].pos].ts
	if a != b {
		return a < b
	}
	return h[i].seq < h[j].seq
}
func (h streams) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *streams) Push(x any)   { *h = append(*h, x.(*bufStream)) }
func (h *streams) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// window is the held buffers.
type window struct {
	h       streams
	held    int // bytes of the held buffers
	free    []*bufStream
	release *bufStream // emptied by the last event passed on, whose bytes it holds
	emitted bool
	latest  int64 // the latest time passed on
}

func (w *window) add(s *bufStream) {
	s.sortIndex()
	w.held += len(s.data)
	heap.Push(&w.h, s)
}

// next takes the earliest event; the stream it empties is released on
// the following call.
func (w *window) next() (*bufStream, evRef) {
	s := w.h[0]
	e := s.idx[s.pos]
	s.pos++
	if s.pos == len(s.idx) {
		heap.Pop(&w.h)
		w.held -= len(s.data)
		w.release = s
	} else {
		heap.Fix(&w.h, 0)
	}
	return s, e
}

func (w *window) newStream() *bufStream {
	if n := len(w.free); n > 0 {
		s := w.free[n-1]
		w.free = w.free[:n-1]
		return s
	}
	return &bufStream{}
}

func (w *window) recycle(s *bufStream) {
	s.data, s.idx, s.pos = nil, s.idx[:0], 0
	if len(w.free) < 64 {
		w.free = append(w.free, s)
	}
}
