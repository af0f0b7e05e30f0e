// Package etltest writes small pktmon ETL files for tests and
// benchmarks: buffer 0 with the logfile header and a record past its
// SavedOffset, per-processor buffers (so that events come out of time
// order across buffers), optionally compressed with Plain LZ77 as the
// relogger does, the component rundown, the DropReason value map, and
// packet and drop events.
//
// Imports: none.
package etltest
