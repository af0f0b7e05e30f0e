package etl

import "container/heap"

// reorder holds up to maxEvents packet events (and maxBytes of their
// payloads) in a heap by timestamp, then file order, and passes on the
// earliest: the bounded sort that puts per-processor buffers back in
// time order.
type reorder struct {
	maxEvents, maxBytes int
	h                   held
	bytes               int
	seq                 int64
	free                [][]byte
	scratch             Packet
	emitted             bool
	lastOut             int64
}

type heldPacket struct {
	p   Packet
	seq int64
}

type held []*heldPacket

func (h held) Len() int { return len(h) }
func (h held) Less(i, j int) bool {
	if h[i].p.Timestamp != h[j].p.Timestamp {
		return h[i].p.Timestamp < h[j].p.Timestamp
	}
	return h[i].seq < h[j].seq
}
func (h held) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *held) Push(x any)   { *h = append(*h, x.(*heldPacket)) }
func (h *held) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

func (w *reorder) len() int { return len(w.h) }

func (w *reorder) full() bool { return len(w.h) >= w.maxEvents || w.bytes >= w.maxBytes }

// push copies p (its Data points into a buffer about to be reused).
func (w *reorder) push(p *Packet) {
	var buf []byte
	if n := len(w.free); n > 0 {
		buf, w.free = w.free[n-1][:0], w.free[:n-1]
	}
	hp := &heldPacket{p: *p, seq: w.seq}
	hp.p.Data = append(buf, p.Data...)
	w.seq++
	w.bytes += len(p.Data)
	heap.Push(&w.h, hp)
}

// pop moves the earliest packet into out; out's previous Data goes back
// to the free list.
func (w *reorder) pop(out *Packet) {
	hp := heap.Pop(&w.h).(*heldPacket)
	if out.Data != nil && len(w.free) < 1024 {
		w.free = append(w.free, out.Data[:0])
	}
	*out = hp.p
	w.bytes -= len(out.Data)
	w.emitted, w.lastOut = true, out.Timestamp
}
