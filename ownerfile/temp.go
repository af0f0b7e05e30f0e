package ownerfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// CreateTemp creates a new file readable by the current user only under a
// hidden name beside path (".NAME.tmp-RANDOM"), for content that is to be
// renamed onto path once complete: the rename keeps the file's protection.
func CreateTemp(path string) (*os.File, error) {
	var b [8]byte
	for i := 0; i < 100; i++ {
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+hex.EncodeToString(b[:]))
		f, err := Create(name)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &os.PathError{Op: "create a temporary file for", Path: path, Err: fs.ErrExist}
}
