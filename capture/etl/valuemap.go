package etl

import (
	"encoding/binary"
	"strings"
)

// Limits on what the embedded value maps may hold, whatever the file:
// pktmon's maps are few (9 in a Windows Server 2022 file), their names
// short, and the largest (DropReason) has a few hundred entries. Names
// are counted per entry, as if each were its own string, so that a file
// pointing thousands of entries at one long name cannot make the maps
// large to whoever walks them.
const (
	maxMaps         = 64      // EventMetadata map records considered per file
	maxMapEntries   = 4096    // entries in one map
	maxMapsEntries  = 16384   // entries in all maps
	maxMapsBytes    = 1 << 20 // bytes of entry names in all maps
	maxMapNameUnits = 256     // UTF-16 units of one name
	maxDroppedNames = 8       // names of dropped maps kept for the note
)

// valueMaps are the value maps of one provider the file embeds, by name
// (DropReason, PacketDirectionTag, ComponentType, ...): value → text.
type valueMaps map[string]map[uint32]string

// mapStore accounts for the value maps a Reader holds.
type mapStore struct {
	records int // map records considered, held or not
	entries int
	bytes   int
	intern  map[string]string
	dropped int      // map records left out
	names   []string // the first few of their names
	// fromScan: the maps, and what was left out, are a Scan's of the
	// same file.
	fromScan bool
}

// addValueMap takes in an EVENT_MAP_INFO the file embeds, if it fits the
// limits; a map that does not is left out whole and counted (a map cut
// short would name some values and not others).
func (r *Reader) addValueMap(b []byte) {
	st := &r.vm
	if st.fromScan {
		return // a Scan of the file took in its maps (UseRundown)
	}
	st.records++
	name, count, ok := mapInfoHead(b)
	if ok {
		if _, held := r.maps[name]; held {
			return // the first of a name is kept; the relogger writes each once
		}
	}
	if !ok || st.records > maxMaps || count > maxMapEntries || st.entries+count > maxMapsEntries {
		st.drop(name)
		return
	}
	if st.intern == nil {
		st.intern = map[string]string{}
	}
	m, size, ok := parseMapEntries(b, count, maxMapsBytes-st.bytes, st.intern)
	if !ok {
		st.drop(name)
		return
	}
	st.entries += count
	st.bytes += size
	for _, s := range m {
		st.intern[s] = s
	}
	r.maps[name] = m
}

func (st *mapStore) drop(name string) {
	st.dropped++
	if name != "" && len(st.names) < maxDroppedNames {
		st.names = append(st.names, name)
	}
}

// mapInfoHead reads an EVENT_MAP_INFO's (TDH) fixed part: NameOffset u32,
// Flag u32, EntryCount u32, MapEntryValueType u32, then EntryCount
// entries of OutputOffset u32 and Value u32. Offsets count from the
// start of the structure; the strings are UTF-16z, often with a trailing
// space that is not part of the name. Bitmaps decode as value maps of
// their bits. ok is false for a structure that does not hold.
func mapInfoHead(b []byte) (name string, count int, ok bool) {
	if len(b) < 16 {
		return "", 0, false
	}
	le := binary.LittleEndian
	nameOff := int64(le.Uint32(b[0:]))
	n := int64(le.Uint32(b[8:]))
	if nameOff <= 0 || nameOff >= int64(len(b)) || 16+n*8 > int64(len(b)) {
		return "", 0, false
	}
	name, _ = utf16z(b[nameOff:], maxMapNameUnits)
	name = strings.TrimSpace(name)
	return name, int(n), name != ""
}

// parseMapEntries decodes the count entries of the EVENT_MAP_INFO b,
// giving up (ok false) once their names pass budget bytes. Names are
// decoded once per offset, and shared with the maps held through intern
// (which holds only their names: a map left out adds none).
func parseMapEntries(b []byte, count, budget int, intern map[string]string) (m map[uint32]string, size int, ok bool) {
	le := binary.LittleEndian
	m = make(map[uint32]string, count)
	byOff := map[int]string{}
	for i := 0; i < count; i++ {
		e := b[16+i*8:]
		off, v := int(le.Uint32(e[0:])), le.Uint32(e[4:])
		if off <= 0 || off >= len(b) {
			return nil, 0, false
		}
		s, seen := byOff[off]
		if !seen {
			s, _ = utf16z(b[off:], maxMapNameUnits)
			s = strings.TrimSpace(s)
			if held, ok := intern[s]; ok {
				s = held
			}
			byOff[off] = s
		}
		if size += len(s); size > budget {
			return nil, 0, false
		}
		m[v] = s
	}
	return m, size, true
}
