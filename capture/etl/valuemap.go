package etl

import (
	"encoding/binary"
	"strings"
)

// Limits on what the embedded value maps may hold: names are short, and
// the largest pktmon map (DropReason) has a few hundred entries.
const (
	maxMapEntries   = 4096
	maxMaps         = 256
	maxMapNameUnits = 256
)

// valueMaps are the value maps of one provider the file embeds, by name
// (DropReason, PacketDirectionTag, ComponentType, ...): value → text.
type valueMaps map[string]map[uint32]string

// parseEventMapInfo decodes an EVENT_MAP_INFO (TDH): NameOffset u32,
// Flag u32, EntryCount u32, MapEntryValueType u32, then EntryCount
// entries of OutputOffset u32 and Value u32. Offsets count from the
// start of the structure; the strings are UTF-16z, often with a trailing
// space that is not part of the name. Bitmaps decode as value maps of
// their bits. It returns ok false for a structure that does not hold.
func parseEventMapInfo(b []byte) (name string, m map[uint32]string, ok bool) {
	if len(b) < 16 {
		return "", nil, false
	}
	le := binary.LittleEndian
	nameOff := int(le.Uint32(b[0:]))
	count := int(le.Uint32(b[8:]))
	if nameOff <= 0 || nameOff >= len(b) || count > maxMapEntries || 16+count*8 > len(b) {
		return "", nil, false
	}
	name, _ = utf16z(b[nameOff:], maxMapNameUnits)
	name = strings.TrimSpace(name)
	m = make(map[uint32]string, count)
	for i := 0; i < count; i++ {
		e := b[16+i*8:]
		off, v := int(le.Uint32(e[0:])), le.Uint32(e[4:])
		if off <= 0 || off >= len(b) {
			return "", nil, false
		}
		s, _ := utf16z(b[off:], maxMapNameUnits)
		m[v] = strings.TrimSpace(s)
	}
	return name, m, name != ""
}
