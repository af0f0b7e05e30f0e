package payload

// Link types of the captures diag reads (capture/linktype.go names them
// for the decoder).
const (
	linkNull          = 0
	linkEthernet      = 1
	linkDLTRaw        = 12 // DLT_RAW as most systems number it
	linkDLTRawOpenBSD = 14 // DLT_RAW on OpenBSD
	linkRaw           = 101
	linkLoop          = 108
	linkSLL           = 113
	linkIPv4          = 228
	linkIPv6          = 229
	linkSLL2          = 276
)

// maxDepth bounds tunnels in tunnels.
const maxDepth = 4
