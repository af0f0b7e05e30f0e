package capture

import (
	"errors"
	"runtime/debug"
	"unsafe"
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
		err = pb.frameCut(b, saved)
	}()
	if err := pb.frame(b); err != errMappedCut {
		return err
	}
	return pb.frameCut(b, saved)
}

// frameCut frames the batch again over what the cut file still holds.
func (pb *pcapBlocks) frameCut(b *batch, saved framingState) error {
	pb.restore(saved)
	pb.cutTo(pb.sizeNow())
	return pb.frame(b)
}

// errMappedCut: frame met the zeros the kernel shows past the end of a
// file cut in the middle of a page (no fault there): the batch is framed
// again over what the file holds.
var errMappedCut = errors.New("the mapped file was cut")

// cutUnder says, for a record of no bytes in a mapped file, whether the
// file now ends before the view does: past a cut inside a page the kernel
// shows zeros, which read as such records. A real one (rare) costs an
// fstat.
func (pb *pcapBlocks) cutUnder() bool {
	return pb.sizeNow() < int64(len(pb.mapped))
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

// noteCutUnder notes the record of p, whose bytes faulted while it was
// analyzed (the file cut under the analysis), as the one the cut went
// through; before packets were analyzed, left of the batch's were not
// (p's the first of them). Records skipped in the batch after p are
// not told apart from packets.
func (pb *pcapBlocks) noteCutUnder(p *Packet, left int, before int64) {
	if pb.stop == nil || len(p.Data) == 0 || len(pb.mapping) == 0 {
		return
	}
	at := int64(uintptr(unsafe.Pointer(unsafe.SliceData(p.Data)))-uintptr(unsafe.Pointer(unsafe.SliceData(pb.mapping)))) - 16
	packet := pb.records - int64(left) + 1
	pb.stop.cutShort("record", at, packet, packet-1, pb.sizeNow(), 16+int64(len(p.Data)))
	pb.done = true
}
