// Package etl reads the packet events of pktmon's ETL files on any OS,
// without the Windows ETW API: the WMI buffer layer (buffer headers,
// [MS-XCA] Plain LZ77 inflation of the buffers the relogger compresses,
// the records buffer 0 holds past its SavedOffset), the logfile header
// (start time, clock, Windows build), and the Microsoft-Windows-PktMon
// events: packets (160) and dropped packets (170) with their fixed part
// and bytes, the component rundown (20-90) and the value maps the
// relogger embeds (drop reason names among them). The whole packets of
// netsh trace files (Microsoft-Windows-NDIS-PacketCapture, event 1001)
// come through the same reader.
//
// Memory is bounded whatever the file: buffers are read one at a time
// (each under Limits.MaxBufferSize), and packet events are put back in
// time order by a k-way merge over a bounded window of whole inflated
// buffers (Limits.ReorderBytes), each with its events indexed by time:
// ETW writes per-processor buffers, so events are out of order by a few
// buffers at most. Packets are passed on from the buffers in place, never
// copied. An event whose buffer comes later than the window is passed on
// out of order, and counted: every event passed on after a later one.
// The embedded value maps are bounded too (maps, entries, bytes of
// names): a map past the bounds is left out and noted.
//
// A file cut short or damaged is read up to the damage: the packets
// before it are passed on, then io.EOF, and Notes says where and why; a
// file cut exactly between two buffers is told by the logfile header's
// count of buffers written. An ETL of other providers only is no
// capture: NotACapture says so, naming them.
//
// Imports: none.
package etl
