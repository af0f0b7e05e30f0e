package etl

import "encoding/binary"

// record takes in one record; it returns the timestamp of a packet
// event, and ok true, for the window to hold.
func (r *Reader) record(rec record) (int64, bool) {
	le := binary.LittleEndian
	switch rec.typ {
	case hdrSystem32, hdrSystem64, hdrCompact32, hdrCompact64, hdrPerfInfo32, hdrPerfInfo64:
		r.stats.SystemRecords++
	case hdrFullHeader32, hdrFullHeader64:
		r.stats.ClassicRecords++
		if rec.size >= traceHeaderSize {
			k := ClassicKind{GUID: guid(rec.b[0x18:0x28]).String(), Type: rec.b[4]}
			if _, ok := r.stats.Classic[k]; ok || len(r.stats.Classic) < 1024 {
				r.stats.Classic[k]++
			}
		}
		if rec.size >= traceHeaderSize+16 && guid(rec.b[0x18:0x28]) == eventMetadataGUID && rec.b[4] == 33 &&
			guid(rec.b[traceHeaderSize:traceHeaderSize+16]) == PktMonProvider {
			r.addValueMap(rec.b[traceHeaderSize+16:])
		}
	case hdrEventHeader32, hdrEventHeader64:
		r.stats.Events++
		if rec.size < eventHeaderSize {
			r.stats.BadEvents++
			return 0, false
		}
		ts := int64(le.Uint64(rec.b[0x10:]))
		if r.seenRaw && ts < r.lastRaw {
			r.stats.InFileOrder = false
		}
		if !r.seenRaw || ts < r.stats.FirstRaw {
			r.stats.FirstRaw = ts
		}
		if !r.seenRaw || ts > r.stats.LastRaw {
			r.stats.LastRaw = ts
		}
		r.seenRaw, r.lastRaw = true, ts
		if g := guid(rec.b[0x18:0x28]); g == NDISCapProvider {
			r.stats.NDISEvents++
			if le.Uint16(rec.b[0x28:]) != evNDISFragment {
				return 0, false
			}
			u, err := userData(rec.b)
			if err != nil {
				r.stats.BadEvents++
				return 0, false
			}
			return ts, r.checkNDISFragment(le.Uint64(rec.b[0x30:]), u)
		} else if g != PktMonProvider {
			r.others.add(g)
			return 0, false
		}
		id := le.Uint16(rec.b[0x28:])
		if id < uint16(len(r.events)) {
			r.events[id]++
		} else if len(r.stats.PktMonEvents) < 4096 || r.stats.PktMonEvents[id] > 0 {
			r.stats.PktMonEvents[id]++
		}
		u, err := userData(rec.b)
		if err != nil {
			r.stats.BadEvents++
			return 0, false
		}
		switch {
		case id == evPacket || id == evDroppedPacket:
			if len(u) < packetFixedSize || packetFixedSize+int(le.Uint16(u[32:])) > len(u) {
				r.stats.BadEvents++
				return 0, false
			}
			return ts, true
		case id >= evComponent && id <= evFlowCounters:
			if err := r.comps.rundown(id, u); err != nil {
				r.stats.BadEvents++
			}
		}
	}
	return 0, false
}
