package etl

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Header is what the file's TRACE_LOGFILE_HEADER (the payload of the
// first record of buffer 0) says about the trace.
type Header struct {
	Version         uint32 // of the log file format
	Build           uint32 // Windows build that wrote the events (ProviderVersion)
	Processors      uint32
	PointerSize     uint32
	BuffersWritten  uint32
	EventsLost      uint32
	BuffersLost     uint32
	CPUSpeedMHz     uint32
	TimerResolution uint32 // 100 ns units
	MaxFileSizeMB   uint32
	LogFileMode     uint32
	PerfFreq        int64
	Clock           Clock
	StartTime       time.Time
	EndTime         time.Time
	BootTime        time.Time
	LoggerName      string
	LogFileName     string

	start     int64 // FILETIME of StartTime
	headerTS  int64 // the logfile-header record's raw timestamp
	ticksFreq int64 // clock ticks per second for timestamps
}

// Clock is the logger's clock type (ReservedFlags): what the event
// timestamps count.
type Clock uint32

// Clock types of WNODE_HEADER.ClientContext / TRACE_LOGFILE_HEADER.ReservedFlags.
const (
	ClockQPC        Clock = 1
	ClockSystemTime Clock = 2
	ClockCPUCycle   Clock = 3
)

func (c Clock) String() string {
	switch c {
	case ClockQPC:
		return "QPC"
	case ClockSystemTime:
		return "system time"
	case ClockCPUCycle:
		return "CPU cycle counter"
	}
	return fmt.Sprintf("clock %d", uint32(c))
}

// filetimeEpoch is 1970-01-01 in FILETIME (100 ns since 1601).
const filetimeEpoch = 116444736000000000

// FiletimeToTime converts a FILETIME to UTC.
func FiletimeToTime(ft int64) time.Time {
	return time.Unix(0, 0).UTC().Add(time.Duration(ft-filetimeEpoch) * 100)
}

// logfileHeaderSize64 is the fixed part of TRACE_LOGFILE_HEADER with
// 8-byte pointers, up to the two names.
const logfileHeaderSize64 = 0x118

// parseLogfileHeader reads the TRACE_LOGFILE_HEADER payload p of the
// record whose raw timestamp is ts. Offsets are for 64-bit pointers; the
// two pointers at 0xA0 are 4 bytes each when PointerSize is 4.
//
//	0x00 BufferSize u32, 0x04 Version u32, 0x08 ProviderVersion u32,
//	0x0C NumberOfProcessors u32, 0x10 EndTime i64, 0x18 TimerResolution u32,
//	0x1C MaximumFileSize u32, 0x20 LogFileMode u32, 0x24 BuffersWritten u32,
//	0x28 StartBuffers u32, 0x2C PointerSize u32, 0x30 EventsLost u32,
//	0x34 CpuSpeedInMHz u32, 0x38 LoggerName ptr, 0x40 LogFileName ptr,
//	0x48 TimeZone (172 bytes) and 4 bytes of padding, 0xF8 BootTime i64,
//	0x100 PerfFreq i64, 0x108 StartTime i64, 0x110 ReservedFlags u32,
//	0x114 BuffersLost u32, then LoggerName and LogFileName, UTF-16z.
func parseLogfileHeader(p []byte, ts int64) (Header, error) {
	var h Header
	if len(p) < 0x38 {
		return h, fmt.Errorf("its logfile header is %d bytes, under the %d it needs", len(p), logfileHeaderSize64)
	}
	le := binary.LittleEndian
	h.Version = le.Uint32(p[0x04:])
	h.Build = le.Uint32(p[0x08:])
	h.Processors = le.Uint32(p[0x0C:])
	end := int64(le.Uint64(p[0x10:]))
	h.TimerResolution = le.Uint32(p[0x18:])
	h.MaxFileSizeMB = le.Uint32(p[0x1C:])
	h.LogFileMode = le.Uint32(p[0x20:])
	h.BuffersWritten = le.Uint32(p[0x24:])
	h.PointerSize = le.Uint32(p[0x2C:])
	h.EventsLost = le.Uint32(p[0x30:])
	h.CPUSpeedMHz = le.Uint32(p[0x34:])
	shift := 0
	switch h.PointerSize {
	case 8:
	case 4:
		shift = -8
	default:
		return h, fmt.Errorf("its logfile header gives a pointer size of %d, not 4 or 8", h.PointerSize)
	}
	q := func(off int) int { return off + shift }
	if len(p) < q(logfileHeaderSize64) {
		return h, fmt.Errorf("its logfile header is %d bytes, under the %d it needs", len(p), q(logfileHeaderSize64))
	}
	boot := int64(le.Uint64(p[q(0xF8):]))
	h.PerfFreq = int64(le.Uint64(p[q(0x100):]))
	h.start = int64(le.Uint64(p[q(0x108):]))
	h.Clock = Clock(le.Uint32(p[q(0x110):]))
	h.BuffersLost = le.Uint32(p[q(0x114):])
	rest := p[q(logfileHeaderSize64):]
	var n int
	h.LoggerName, n = utf16z(rest, 256)
	h.LogFileName, _ = utf16z(rest[n:], 1024)
	h.StartTime, h.EndTime, h.BootTime = FiletimeToTime(h.start), FiletimeToTime(end), FiletimeToTime(boot)
	h.headerTS = ts
	switch h.Clock {
	case ClockQPC:
		h.ticksFreq = h.PerfFreq
	case ClockCPUCycle:
		h.ticksFreq = int64(h.CPUSpeedMHz) * 1e6
	case ClockSystemTime:
		h.ticksFreq = 1e7
	default:
		return h, fmt.Errorf("its logfile header gives clock type %d, not 1 (QPC), 2 (system time) or 3 (CPU cycles)", uint32(h.Clock))
	}
	if h.ticksFreq <= 0 {
		return h, fmt.Errorf("its logfile header gives a %s frequency of %d", h.Clock, h.ticksFreq)
	}
	return h, nil
}

// Filetime converts an event's raw timestamp to FILETIME (100 ns since
// 1601): the trace's start time plus the ticks since the logfile-header
// record, scaled by the clock's frequency. A system-time clock already
// counts FILETIME.
func (h *Header) Filetime(ts int64) int64 {
	if h.Clock == ClockSystemTime {
		return ts
	}
	d := ts - h.headerTS
	neg := d < 0
	if neg {
		d = -d
	}
	// Split so that d*1e7 cannot overflow.
	q, r := d/h.ticksFreq, d%h.ticksFreq
	v := q*1e7 + r*1e7/h.ticksFreq
	if neg {
		v = -v
	}
	return h.start + v
}
