package etl

import (
	"encoding/binary"
	"fmt"
)

// Trace header types: the third byte of every record (its fourth, the
// marker, has the top two bits set). System, compact and perfinfo
// records keep their size at offset 4; the others at offset 0.
const (
	hdrSystem32      = 0x01
	hdrSystem64      = 0x02
	hdrCompact32     = 0x03
	hdrCompact64     = 0x04
	hdrPerfInfo32    = 0x10
	hdrPerfInfo64    = 0x11
	hdrEventHeader32 = 0x12
	hdrEventHeader64 = 0x13
	hdrFullHeader32  = 0x0A
	hdrFullHeader64  = 0x14
)

// eventHeaderSize is the EVENT_HEADER of a manifest event:
//
//	0x00 Size u16, HeaderType u8, MarkerFlags u8, 0x04 Flags u16,
//	0x06 EventProperty u16, 0x08 ThreadId u32, 0x0C ProcessId u32,
//	0x10 TimeStamp u64, 0x18 ProviderId GUID, 0x28 EventDescriptor
//	(Id u16, Version u8, Channel u8, Level u8, Opcode u8, Task u16,
//	Keyword u64), 0x38 ProcessorTime u64, 0x40 ActivityId GUID.
const eventHeaderSize = 0x50

// traceHeaderSize is the classic EVENT_TRACE_HEADER: 0x04 Class.Type u8,
// 0x10 TimeStamp u64, 0x18 Guid.
const traceHeaderSize = 0x30

// systemHeaderSize is SYSTEM_TRACE_HEADER: 0x06 HookId u16 (group in the
// high byte), 0x10 SystemTime u64.
const systemHeaderSize = 0x20

// eventFlagExtendedInfo marks extended data items between the
// EVENT_HEADER and the user data.
const eventFlagExtendedInfo = 0x0001

// record is one record of a buffer.
type record struct {
	typ  byte
	b    []byte // the whole record
	at   int    // offset in its buffer
	size int
}

// nextRecord reads the record at pos of buf (valid up to len(buf)). It
// returns ok false at the end of the records (the rest is unused space),
// and an error for a record that cannot be.
func nextRecord(buf []byte, pos int) (record, bool, error) {
	if pos+4 > len(buf) {
		return record{}, false, nil
	}
	typ, marker := buf[pos+2], buf[pos+3]
	if binary.LittleEndian.Uint32(buf[pos:]) == 0xFFFFFFFF || binary.LittleEndian.Uint32(buf[pos:]) == 0 {
		return record{}, false, nil // filler after the last record
	}
	if marker&0xC0 != 0xC0 {
		return record{}, false, fmt.Errorf("the record at byte %d of the buffer has marker %#02x, not a trace header's (0xC0 bits set)", pos, marker)
	}
	var size int
	switch typ {
	case hdrSystem32, hdrSystem64, hdrCompact32, hdrCompact64, hdrPerfInfo32, hdrPerfInfo64:
		if pos+6 > len(buf) {
			return record{}, false, fmt.Errorf("the record at byte %d of the buffer is cut by the buffer's end", pos)
		}
		size = int(binary.LittleEndian.Uint16(buf[pos+4:]))
	default:
		size = int(binary.LittleEndian.Uint16(buf[pos:]))
	}
	if size < 8 || pos+size > len(buf) {
		return record{}, false, fmt.Errorf("the record at byte %d of the buffer gives a size of %d bytes with %d left in the buffer", pos, size, len(buf)-pos)
	}
	return record{typ: typ, b: buf[pos : pos+size], at: pos, size: size}, true, nil
}

// align8 rounds n up to a multiple of 8: records start 8-byte aligned.
func align8(n int) int { return (n + 7) &^ 7 }

// userData returns the user data of an EVENT_HEADER record, past any
// extended data items (each: Reserved1 u16, ExtType u16, Linkage bit in
// a u16, DataSize u16, then the data, 8-byte aligned; Linkage set when
// another item follows).
func userData(r []byte) ([]byte, error) {
	if len(r) < eventHeaderSize {
		return nil, fmt.Errorf("an event record of %d bytes, under its %d-byte header", len(r), eventHeaderSize)
	}
	pos := eventHeaderSize
	if binary.LittleEndian.Uint16(r[4:])&eventFlagExtendedInfo != 0 {
		for {
			if pos+8 > len(r) {
				return nil, fmt.Errorf("extended data cut at byte %d of a %d-byte event", pos, len(r))
			}
			link := binary.LittleEndian.Uint16(r[pos+4:]) & 1
			n := int(binary.LittleEndian.Uint16(r[pos+6:]))
			pos = align8(pos + 8 + n)
			if pos > len(r) {
				return nil, fmt.Errorf("extended data past the end of a %d-byte event", len(r))
			}
			if link == 0 {
				break
			}
		}
	}
	return r[pos:], nil
}

// guid is a GUID as it lies in the file: Data1 u32, Data2 u16, Data3 u16
// little-endian, then 8 bytes.
type guid [16]byte

func (g guid) String() string {
	le := binary.LittleEndian
	return fmt.Sprintf("{%08x-%04x-%04x-%x-%x}", le.Uint32(g[0:]), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:10], g[10:])
}

func mustGUID(s string) guid {
	var g guid
	var d1 uint32
	var d2, d3 uint16
	var d4 [8]byte
	if _, err := fmt.Sscanf(s, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", &d1, &d2, &d3,
		&d4[0], &d4[1], &d4[2], &d4[3], &d4[4], &d4[5], &d4[6], &d4[7]); err != nil {
		panic("bad GUID " + s)
	}
	binary.LittleEndian.PutUint32(g[0:], d1)
	binary.LittleEndian.PutUint16(g[4:], d2)
	binary.LittleEndian.PutUint16(g[6:], d3)
	copy(g[8:], d4[:])
	return g
}

// Providers and classic event GUIDs the reader knows.
var (
	// PktMonProvider is Microsoft-Windows-PktMon.
	PktMonProvider = mustGUID("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")
	// eventMetadataGUID carries the relogger's copies of TRACE_EVENT_INFO
	// (type 32) and of EVENT_MAP_INFO (type 33) for the events it wrote.
	eventMetadataGUID = mustGUID("bbccf6c1-6cd1-48c4-80ff-839482e37671")
)
