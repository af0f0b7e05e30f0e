//go:build unix

package bundle

import "syscall"

// oNonblock keeps opening a FIFO from waiting for a writer; it does not
// change reads from regular files.
const oNonblock = syscall.O_NONBLOCK
