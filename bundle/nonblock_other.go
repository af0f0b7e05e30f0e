//go:build !unix

package bundle

// oNonblock: Windows has no FIFOs in the file system namespace to block on.
const oNonblock = 0
