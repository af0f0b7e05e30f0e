package capture

import (
	"runtime/debug"
)

// fillMapped is fill over a mapped capture. A file cut while it is read
// (a capture rotated or truncated under the reader) faults where its pages
// now end, in the middle of framing a batch: the batch is then framed
// again over what the file still holds, so that every whole packet before
// the cut is reported, as reading the cut file reports them, and the
// record the cut went through is noted as cut short. A fault while
// framing again (the file cut once more) ends the packets in the caller's
// recovery, with the batch.
func (pb *pcapBlocks) fillMapped(b *batch) (err error) {
	saved := pb.framing()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if !isFault(r) {
			panic(r)
		}
		pb.restore(saved)
		pb.cutTo(pb.sizeNow())
		err = pb.frame(b)
	}()
	return pb.frame(b)
}

// framingState is what framing a batch changes in pcapBlocks before it
// ends, for framing it again.
type framingState struct {
	records, skip, skipAt int64
	skips                 readSkips
	stop                  readStop
	done                  bool
}

func (pb *pcapBlocks) framing() framingState {
	if pb.skips == nil {
		pb.skips = &readSkips{}
	}
	if pb.stop == nil {
		pb.stop = &readStop{}
	}
	return framingState{records: pb.records, skip: pb.skip, skipAt: pb.skipAt, skips: *pb.skips, stop: *pb.stop, done: pb.done}
}

func (pb *pcapBlocks) restore(s framingState) {
	pb.records, pb.skip, pb.skipAt, pb.done = s.records, s.skip, s.skipAt, s.done
	*pb.skips, *pb.stop = s.skips, s.stop
}

// sizeNow is how long the mapped file is now; where it cannot be told,
// where the reader is (nothing more is framed).
func (pb *pcapBlocks) sizeNow() int64 {
	if pb.file != nil {
		if st, err := pb.file.Stat(); err == nil {
			return st.Size()
		}
	}
	return pb.off
}

// cutTo ends the view of the mapping at size, the file's new end. The
// pager keeps the whole mapping: its touches past the end fault, which it
// takes as the end.
func (pb *pcapBlocks) cutTo(size int64) {
	pb.cut = true
	pb.ahead = 0 // what was prefetched past the end was dropped
	if size < int64(len(pb.mapped)) {
		pb.mapped = pb.mapped[:max(size, pb.off)]
	}
}
