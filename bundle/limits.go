package bundle

// Limits bound what the reader accepts, so that a hostile or broken bundle
// (a zip bomb, a million entries) is refused in bounded memory and time.
type Limits struct {
	MaxEntries   int   // entries in the archive, directories included
	MaxEntrySize int64 // uncompressed bytes of one entry
	MaxTotalSize int64 // uncompressed bytes of all entries together
}

// DefaultLimits fit the largest real bundles we expect: a busy node's VFP dump
// is tens of MB; a capture can be a few hundred MB.
var DefaultLimits = Limits{
	MaxEntries:   20000,
	MaxEntrySize: 1 << 30,
	MaxTotalSize: 4 << 30,
}
