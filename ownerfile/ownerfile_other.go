//go:build !windows

package ownerfile

import (
	"fmt"
	"os"
)

// Create creates path for writing, readable and writable by the current
// user only; it fails with an error matching fs.ErrExist when path exists.
func Create(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// Check returns nil when no one but path's owner may read or write it,
// else an error naming what else is allowed.
func Check(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if p := st.Mode().Perm(); p&0o077 != 0 {
		return fmt.Errorf("%s: mode %04o, expected 0600 (owner only)", path, p)
	}
	return nil
}
