// Package etl reads the packet events of pktmon's ETL files on any OS,
// without the Windows ETW API: the WMI buffer layer (buffer headers,
// [MS-XCA] Plain LZ77 inflation of the buffers the relogger compresses,
// the records buffer 0 holds past its SavedOffset), the logfile header
// (start time, clock, Windows build), and the Microsoft-Windows-PktMon
// events: packets (160) and dropped packets (170) with their fixed part
// and bytes, the component rundown (20-90) and the value maps the
// relogger embeds (drop reason names among them).
//
// Memory is bounded whatever the file: one buffer is held at a time
// (with its inflated copy, both under Limits.MaxBufferSize), and packet
// events are put back in time order within a bounded window
// (Limits.ReorderEvents, Limits.ReorderBytes): a heap passes on the
// earliest event once the window is full. ETW writes per-processor
// buffers, so events are out of order by at most a few buffers; one that
// comes later than the window is passed on out of order and counted.
//
// A file cut short or damaged is read up to the damage: the packets
// before it are passed on, then io.EOF, and Notes says where and why.
package etl
