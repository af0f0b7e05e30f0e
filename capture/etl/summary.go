package etl

import "time"

// maxKeys bounds each count map of a summary (reasons, locations):
// further distinct values are counted together under Other.
const maxKeys = 4096

// summary counts the packet events passed on, in time order.
type summary struct {
	PacketEvents   int64
	Packets        int64 // distinct PktGroupId
	DroppedPackets int64 // distinct PktGroupId with a drop event
	LoggedBytes    int64
	OriginalBytes  int64
	DropEvents     int64
	First, Last    int64 // FILETIME of the first and last packet event
	// Counted in arrays, not maps: these are touched by every event.
	byType        [16]int64
	byDirection   [16]int64
	byComponent   *[1 << 16]int64
	ByType        map[PacketType]int64 // values past the arrays
	ByDirection   map[Direction]int64
	DropsByReason map[uint32]int64
	DropsByLoc    map[uint32]int64
	DropsByComp   map[uint16]int64
	OtherKeys     int64

	groups, dropGroups idSet
	groupsCapped       bool
}

func (s *summary) init() {
	s.ByType, s.ByDirection, s.byComponent = map[PacketType]int64{}, map[Direction]int64{}, new([1 << 16]int64)
	s.DropsByReason, s.DropsByLoc, s.DropsByComp = map[uint32]int64{}, map[uint32]int64{}, map[uint16]int64{}
	s.groups.init()
	s.dropGroups.init()
}

func count[K comparable](s *summary, m map[K]int64, k K) {
	if _, ok := m[k]; ok || len(m) < maxKeys {
		m[k]++
		return
	}
	s.OtherKeys++
}

func (s *summary) add(p *Packet, r *Reader) {
	if s.PacketEvents == 0 || p.Filetime < s.First {
		s.First = p.Filetime
	}
	if s.PacketEvents == 0 || p.Filetime > s.Last {
		s.Last = p.Filetime
	}
	s.PacketEvents++
	s.LoggedBytes += int64(len(p.Data))
	s.OriginalBytes += int64(p.OriginalSize)
	if int(p.Type) < len(s.byType) {
		s.byType[p.Type]++
	} else {
		count(s, s.ByType, p.Type)
	}
	if int(p.Direction) < len(s.byDirection) {
		s.byDirection[p.Direction]++
	} else {
		count(s, s.ByDirection, p.Direction)
	}
	s.byComponent[p.Component]++
	if p.NDIS || s.groups.add(p.GroupID) {
		s.Packets++ // an NDIS capture logs a packet once per adapter, without an id
	}
	if p.Dropped {
		s.DropEvents++
		count(s, s.DropsByReason, p.DropReason)
		count(s, s.DropsByLoc, p.DropLocation)
		count(s, s.DropsByComp, p.Component)
		if s.dropGroups.add(p.GroupID) {
			s.DroppedPackets++
		}
	}
	s.groupsCapped = s.groups.capped || s.dropGroups.capped
}

// Summary is what the packet events passed on so far add up to.
type Summary struct {
	PacketEvents   int64 // events 160 and 170
	Packets        int64 // distinct PktGroupId
	DroppedPackets int64 // distinct PktGroupId of the drop events
	LoggedBytes    int64
	OriginalBytes  int64
	DropEvents     int64 // events 170
	First, Last    time.Time
	FirstFiletime  int64
	LastFiletime   int64
	ByType         map[PacketType]int64
	ByDirection    map[Direction]int64
	ByComponent    map[uint16]int64
	DropsByReason  map[uint32]int64
	DropsByLoc     map[uint32]int64
	DropsByComp    map[uint16]int64
	// OtherKeys counts events whose reason, location, component, type
	// or direction came after maxKeys distinct others.
	OtherKeys int64
	// PacketsLowerBound says Packets is at least that (ids too scattered
	// to keep).
	PacketsLowerBound bool
}

// Summary returns the counts of the packet events Next has passed on.
func (r *Reader) Summary() Summary {
	s := &r.sum
	out := Summary{
		PacketEvents: s.PacketEvents, Packets: s.Packets, DroppedPackets: s.DroppedPackets,
		LoggedBytes: s.LoggedBytes, OriginalBytes: s.OriginalBytes, DropEvents: s.DropEvents,
		ByType: map[PacketType]int64{}, ByDirection: map[Direction]int64{}, ByComponent: map[uint16]int64{},
		DropsByReason: s.DropsByReason, DropsByLoc: s.DropsByLoc, DropsByComp: s.DropsByComp,
		OtherKeys: s.OtherKeys, PacketsLowerBound: s.groupsCapped,
	}
	for k, n := range s.ByType {
		out.ByType[k] = n
	}
	for k, n := range s.byType {
		if n > 0 {
			out.ByType[PacketType(k)] = n
		}
	}
	for k, n := range s.ByDirection {
		out.ByDirection[k] = n
	}
	for k, n := range s.byDirection {
		if n > 0 {
			out.ByDirection[Direction(k)] = n
		}
	}
	for k, n := range s.byComponent {
		if n > 0 {
			out.ByComponent[uint16(k)] = n
		}
	}
	if s.PacketEvents > 0 {
		out.FirstFiletime, out.LastFiletime = s.First, s.Last
		out.First, out.Last = FiletimeToTime(s.First), FiletimeToTime(s.Last)
	}
	return out
}

// idSet is a set of 64-bit packet ids as a sparse bitmap in 4096-id
// pages: pktmon numbers packets with a counter, so the ids of a capture
// fill few pages. The pages are capped (32 MiB); past the cap a new id
// on a new page is not counted, and capped says so.
type idSet struct {
	pages    map[uint64]*[64]uint64
	lastKey  uint64
	lastPage *[64]uint64 // the page of the id before: ids come in runs
	capped   bool
}

const maxIDPages = 65536

func (s *idSet) init() { s.pages = map[uint64]*[64]uint64{} }

// add says whether id is new.
func (s *idSet) add(id uint64) bool {
	pg := s.lastPage
	if pg == nil || s.lastKey != id>>12 {
		pg = s.pages[id>>12]
	}
	if pg == nil {
		if len(s.pages) >= maxIDPages {
			s.capped = true
			return false
		}
		pg = new([64]uint64)
		s.pages[id>>12] = pg
	}
	s.lastKey, s.lastPage = id>>12, pg
	w, bit := (id>>6)&63, uint64(1)<<(id&63)
	if pg[w]&bit != 0 {
		return false
	}
	pg[w] |= bit
	return true
}
