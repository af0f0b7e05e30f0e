package bundle

import (
	"fmt"
	"io"
	"os"
)

// Inputs come from strangers: a path may name a FIFO (opening it blocks
// until a writer comes), a device (/dev/zero never ends) or a symbolic link
// swapped in after it was checked. openRegular opens without blocking and
// checks what was opened, not what the name pointed at a moment before.

// openRegular opens a regular file for reading; anything else is refused
// without blocking.
func openRegular(p string) (*os.File, os.FileInfo, error) {
	return regularOnly(os.OpenFile(p, os.O_RDONLY|oNonblock, 0))
}

// openInRoot opens name beneath root (an os.Root: no path, symbolic link or
// ".." leads out of it) as a regular file, without blocking.
func openInRoot(root *os.Root, name string) (*os.File, os.FileInfo, error) {
	return regularOnly(root.OpenFile(name, os.O_RDONLY|oNonblock, 0))
}

// regularOnly checks what an open returned: the file is kept open only if
// it is a regular one.
func regularOnly(f *os.File, err error) (*os.File, os.FileInfo, error) {
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, errNotRegular(fi)
	}
	return f, fi, nil
}

func errNotRegular(fi os.FileInfo) error {
	return fmt.Errorf("not a regular file (%s)", describeMode(fi.Mode()))
}

func describeMode(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	}
	return m.String()
}

// maxSidecar bounds the .sha256 sidecar: one line of sha256sum output.
const maxSidecar = 4 << 10

// readSmall reads a regular file of at most max bytes.
func readSmall(p string, max int64) ([]byte, error) {
	f, _, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	return data, nil
}
