package etl

// prefetched is a buffer read and inflated ahead of the reader.
type prefetched struct {
	data []byte
	h    bufferHeader
	err  error
}

// startPrefetch reads and inflates buffers in a goroutine, two ahead of
// the merge: inflation then runs beside the rest of the work. It ends at
// the end of the file, at an error, or at Close.
func (r *Reader) startPrefetch() {
	r.pre, r.quit = make(chan prefetched, 2), make(chan struct{})
	go func() {
		defer close(r.pre)
		for {
			data, h, err := r.bufs.next()
			select {
			case r.pre <- prefetched{data, h, err}:
			case <-r.quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
}

// Close stops the reading ahead; a Reader read to io.EOF needs none.
func (r *Reader) Close() {
	if r.quit != nil && !r.closed {
		r.closed = true
		close(r.quit)
		for range r.pre {
		}
	}
}

// index takes in the records of a buffer from pos: the packet events go
// to the window, the rest (rundown, value maps) are applied now.
func (r *Reader) index(data []byte, pos int, proc uint16) {
	s := r.win.newStream()
	s.data, s.proc, s.seq = data, proc, r.stats.Buffers
	for {
		rec, ok, err := nextRecord(data, pos)
		if err != nil {
			r.stats.BadRecords++
		}
		if !ok {
			break
		}
		if ts, ok := r.record(rec); ok && !r.noPkts {
			s.idx = append(s.idx, evRef{at: int32(pos), size: int32(rec.size), ts: ts})
		}
		pos = align8(pos + rec.size)
	}
	if len(s.idx) == 0 {
		r.bufs.put(data)
		r.win.recycle(s)
		return
	}
	r.win.add(s)
}
