package etl

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// realDir holds real pktmon files with the figures an independent parser
// gives for them; the tests skip when it is absent.
const realDir = "../../../shared/etl/"

// expected is the part of demikernel.expected.json the reader is held to.
type expected struct {
	Size    int64 `json:"size"`
	Buffers struct {
		Buffers      int   `json:"buffers"`
		Extra        int   `json:"uncompressed_buffer_records_past_savedoffset_bytes"`
		Compressed   int   `json:"compressed_buffers"`
		CompBytes    int64 `json:"compressed_bytes"`
		InflateBytes int64 `json:"inflated_bytes"`
	} `json:"buffers"`
	Header struct {
		Version         string `json:"version"`
		Build           uint32 `json:"provider_version_os_build"`
		Processors      uint32 `json:"number_of_processors"`
		EndTime         int64  `json:"end_time_filetime"`
		EndUTC          string `json:"end_time_utc"`
		TimerResolution uint32 `json:"timer_resolution"`
		MaxFileSize     uint32 `json:"max_file_size_mb"`
		LogFileMode     string `json:"log_file_mode"`
		BuffersWritten  uint32 `json:"buffers_written"`
		PointerSize     uint32 `json:"pointer_size"`
		EventsLost      uint32 `json:"events_lost"`
		CPUSpeed        uint32 `json:"cpu_speed_mhz"`
		BootTime        int64  `json:"boot_time_filetime"`
		PerfFreq        int64  `json:"perf_freq"`
		StartTime       int64  `json:"start_time_filetime"`
		StartUTC        string `json:"start_time_utc"`
		Clock           uint32 `json:"clock_type_reserved_flags"`
		BuffersLost     uint32 `json:"buffers_lost"`
		SessionName     string `json:"session_name"`
		LogFileName     string `json:"log_file_name"`
		HeaderTS        int64  `json:"header_event_raw_timestamp"`
	} `json:"header"`
	RecordKinds struct {
		System  int64 `json:"SystemTraceRecord"`
		Classic int64 `json:"TraceRecord"`
		Events  int64 `json:"EventRecord"`
	} `json:"record_kinds"`
	ClassicRecords map[string]int64 `json:"classic_records"`
	EventsByID     map[string]int64 `json:"events_by_provider_id_version"`
	EventsTotal    int64            `json:"events_total"`
	Timestamps     struct {
		FirstRaw, LastRaw int64
		FirstUTC          string `json:"first_utc"`
		LastUTC           string `json:"last_utc"`
		Monotonic         bool   `json:"in_file_order_monotonic"`
	} `json:"timestamps"`
	PacketTimes struct {
		FirstRaw int64  `json:"first_raw"`
		LastRaw  int64  `json:"last_raw"`
		FirstUTC string `json:"first_utc"`
		LastUTC  string `json:"last_utc"`
	} `json:"packet_timestamps"`
	PktMon struct {
		PacketEvents  int64            `json:"packet_events"`
		Logged        int64            `json:"logged_bytes"`
		Original      int64            `json:"original_bytes"`
		DropEvents    int64            `json:"drop_events"`
		Unique        int64            `json:"unique_pktgroupid"`
		UniqueDropped int64            `json:"unique_pktgroupid_dropped"`
		PacketType    map[string]int64 `json:"packet_type"`
		DirTag        map[string]int64 `json:"dirtag"`
		PerComponent  map[string]int64 `json:"events_per_component"`
		DropReason    map[string]int64 `json:"drop_reason"`
		DropLocation  map[string]int64 `json:"drop_location"`
		DropComponent map[string]int64 `json:"drop_component"`
	} `json:"pktmon"`
	Components     map[string]string `json:"pktmon_components"`
	EthernetFrames map[string]int64  `json:"ethernet_frames"`
	ValueMaps      map[string]int    `json:"embedded_value_maps"`
}

func loadExpected(t *testing.T, name string) *expected {
	t.Helper()
	b, err := os.ReadFile(realDir + name)
	if err != nil {
		t.Skipf("no real ETL figures (%v): the shared inputs are not on this machine", err)
	}
	var e expected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Timestamps struct {
			FirstRaw int64 `json:"first_raw"`
			LastRaw  int64 `json:"last_raw"`
		} `json:"timestamps"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	e.Timestamps.FirstRaw, e.Timestamps.LastRaw = raw.Timestamps.FirstRaw, raw.Timestamps.LastRaw
	return &e
}

// utc formats a time as the figures do: RFC 3339 with 100 ns digits.
func utc(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.0000000Z") }

func TestRealDemikernel(t *testing.T) {
	e := loadExpected(t, "demikernel.expected.json")
	f, err := os.Open(realDir + "demikernel.PktMon.etl")
	if err != nil {
		t.Skipf("no real ETL file: %v", err)
	}
	defer f.Close()
	if st, _ := f.Stat(); st.Size() != e.Size {
		t.Fatalf("size %d, figures are for %d", st.Size(), e.Size)
	}
	r, err := NewReader(f, "demikernel.PktMon.etl", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var firstRaw, lastRaw int64
	ipv4, icmp := int64(0), int64(0)
	prev := int64(-1 << 62)
	for i := 0; ; i++ {
		p, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.Timestamp < prev {
			t.Errorf("packet %d at %d, before the one before it (%d)", i, p.Timestamp, prev)
		}
		prev = p.Timestamp
		if i == 0 {
			firstRaw = p.Timestamp
		}
		lastRaw = p.Timestamp
		if p.Type == PacketEthernet && len(p.Data) >= 24 && p.Data[12] == 0x08 && p.Data[13] == 0 {
			ipv4++
			if p.Data[23] == 1 {
				icmp++
			}
		}
	}
	if notes := r.Notes(); len(notes) > 0 {
		t.Errorf("notes on a whole file: %q", notes)
	}
	h, st, sum := r.Header(), r.Stats(), r.Summary()

	check := func(what string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	// Buffers.
	check("buffers", st.Buffers, e.Buffers.Buffers)
	check("buffer 0 records past SavedOffset", st.Buffer0Extra, e.Buffers.Extra)
	check("compressed buffers", st.CompressedBuffers, e.Buffers.Compressed)
	check("compressed bytes", st.CompressedBytes, e.Buffers.CompBytes)
	check("inflated bytes", st.InflatedBytes, e.Buffers.InflateBytes)
	// Logfile header.
	check("version", fmt.Sprintf("0x%08x", h.Version), e.Header.Version)
	check("build", h.Build, e.Header.Build)
	check("processors", h.Processors, e.Header.Processors)
	check("end time", utc(h.EndTime), e.Header.EndUTC)
	check("timer resolution", h.TimerResolution, e.Header.TimerResolution)
	check("max file size", h.MaxFileSizeMB, e.Header.MaxFileSize)
	check("log file mode", fmt.Sprintf("0x%08x", h.LogFileMode), e.Header.LogFileMode)
	check("buffers written", h.BuffersWritten, e.Header.BuffersWritten)
	check("pointer size", h.PointerSize, e.Header.PointerSize)
	check("events lost", h.EventsLost, e.Header.EventsLost)
	check("cpu speed", h.CPUSpeedMHz, e.Header.CPUSpeed)
	check("boot time", h.BootTime, FiletimeToTime(e.Header.BootTime))
	check("perf freq", h.PerfFreq, e.Header.PerfFreq)
	check("start time", utc(h.StartTime), e.Header.StartUTC)
	check("start filetime", h.start, e.Header.StartTime)
	check("clock", uint32(h.Clock), e.Header.Clock)
	check("buffers lost", h.BuffersLost, e.Header.BuffersLost)
	check("session", h.LoggerName, e.Header.SessionName)
	check("log file", h.LogFileName, e.Header.LogFileName)
	check("header record timestamp", h.headerTS, e.Header.HeaderTS)
	// Records.
	check("system records", st.SystemRecords, e.RecordKinds.System)
	check("classic records", st.ClassicRecords, e.RecordKinds.Classic)
	check("events", st.Events, e.RecordKinds.Events)
	check("events total", st.Events, e.EventsTotal)
	classic := map[string]int64{}
	for k, n := range st.Classic {
		name := map[string]string{eventMetadataGUID.String(): "EventMetadata(TRACE_EVENT_INFO)", "{9b79ee91-b5fd-41c0-a243-4248e266e9d0}": "SysConfigEx"}[k.GUID]
		classic[fmt.Sprintf("trace %s type=%d", name, k.Type)] += n
	}
	for k, n := range e.ClassicRecords {
		if strings.HasPrefix(k, "trace ") {
			check("classic "+k, classic[k], n)
			delete(classic, k)
		}
	}
	check("classic kinds not in the figures", classic, map[string]int64{})
	byID := map[string]int64{}
	for id, n := range st.PktMonEvents {
		byID[fmt.Sprintf("Microsoft-Windows-PktMon/%d/0", id)] = n
	}
	check("events by id", byID, e.EventsByID)
	check("first event raw", st.FirstRaw, e.Timestamps.FirstRaw)
	check("last event raw", st.LastRaw, e.Timestamps.LastRaw)
	check("first event", utc(FiletimeToTime(h.Filetime(st.FirstRaw))), e.Timestamps.FirstUTC)
	check("last event", utc(FiletimeToTime(h.Filetime(st.LastRaw))), e.Timestamps.LastUTC)
	check("in file order", st.InFileOrder, e.Timestamps.Monotonic)
	// Packets.
	check("first packet raw", firstRaw, e.PacketTimes.FirstRaw)
	check("last packet raw", lastRaw, e.PacketTimes.LastRaw)
	check("first packet", utc(sum.First), e.PacketTimes.FirstUTC)
	check("last packet", utc(sum.Last), e.PacketTimes.LastUTC)
	check("packet events", sum.PacketEvents, e.PktMon.PacketEvents)
	check("logged bytes", sum.LoggedBytes, e.PktMon.Logged)
	check("original bytes", sum.OriginalBytes, e.PktMon.Original)
	check("drop events", sum.DropEvents, e.PktMon.DropEvents)
	check("distinct packets", sum.Packets, e.PktMon.Unique)
	check("distinct dropped packets", sum.DroppedPackets, e.PktMon.UniqueDropped)
	check("packet types", keyed(sum.ByType, func(k PacketType) string { return k.String() }), e.PktMon.PacketType)
	check("direction tags", keyed(sum.ByDirection, func(k Direction) string { return strconv.Itoa(int(k)) }), e.PktMon.DirTag)
	check("events per component", keyed(sum.ByComponent, func(k uint16) string { return strconv.Itoa(int(k)) }), e.PktMon.PerComponent)
	check("drops by reason", keyed(sum.DropsByReason, func(k uint32) string { return strconv.Itoa(int(k)) }), e.PktMon.DropReason)
	check("drops by location", keyed(sum.DropsByLoc, func(k uint32) string { return strconv.Itoa(int(k)) }), e.PktMon.DropLocation)
	check("drops by component", keyed(sum.DropsByComp, func(k uint16) string { return strconv.Itoa(int(k)) }), e.PktMon.DropComponent)
	check("IPv4 frames", ipv4, e.EthernetFrames["ipv4"])
	check("ICMP frames", icmp, e.EthernetFrames["ipv4_proto_1"])
	// Components.
	comps := map[string]string{}
	for _, c := range r.Components() {
		name := c.Name
		if name == "" {
			name = "NULL"
		}
		if c.Name != "" || c.Description != "" {
			comps[strconv.Itoa(int(c.ID))] = fmt.Sprintf("type=%d %s | %s", c.Type, name, c.Description)
		}
	}
	check("components", comps, e.Components)
	// Value maps.
	maps := map[string]int{}
	for name, m := range r.maps {
		maps[name] = len(m)
	}
	want := map[string]int{}
	for k, n := range e.ValueMaps {
		want[strings.TrimSuffix(k, " (bitmap)")] = n
	}
	check("value maps", maps, want)
	check("direction 4 by the file's map", r.ValueMap("PacketDirectionTag")[4], "Tx")
}

// keyed turns a count map's keys into strings, as the figures have them.
func keyed[K comparable](m map[K]int64, name func(K) string) map[string]int64 {
	out := map[string]int64{}
	for k, n := range m {
		out[name(k)] += n
	}
	return out
}
