package bundle

// A bundle and its .sha256, and anonymize's key and map beside them, are put
// in place as one set, all or none, never left half old and half new. On
// Windows a file that another program has open (an editor, a file
// manager's preview) can be neither replaced nor renamed; on any platform a
// folder cannot be replaced by a file. Each old file is first moved aside,
// which fails for such a file before anything new is in place; on any
// failure what was done is undone.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// replaceFile is a complete new file at Tmp that is to take the place of Dst, in
// the same folder; with no Tmp, Dst is to go (an old file that would not
// belong with the new ones). With NoReplace an existing Dst is left alone
// and the set fails with an error matching fs.ErrExist.
type replaceFile struct {
	Tmp, Dst  string
	NoReplace bool
}

// heldError is a Dst that could not be moved aside or replaced: nothing of
// the set was put in place, and every Tmp is still there.
type heldError struct {
	Path string
	Err  error
}

func (e *heldError) Error() string { return fmt.Sprintf("%s could not be replaced: %v", e.Path, e.Err) }
func (e *heldError) Unwrap() error { return e.Err }

// Reason is the system's words without the operation and paths of a
// *os.LinkError or *fs.PathError ("The process cannot access the file
// because it is being used by another process.").
func (e *heldError) Reason() error {
	var le *os.LinkError
	if errors.As(e.Err, &le) {
		return le.Err
	}
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return pe.Err
	}
	return e.Err
}

// replaceSet moves every Tmp onto its Dst, or none: on an error every Dst is
// as it was and every Tmp is still in place, for the caller to keep or
// remove.
func replaceSet(files []replaceFile) error {
	type aside struct{ old, dst string }
	var asides []aside
	restore := func() {
		for i := len(asides) - 1; i >= 0; i-- {
			os.Rename(asides[i].old, asides[i].dst)
		}
	}
	for _, f := range files {
		st, err := os.Lstat(f.Dst)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			restore()
			return &heldError{Path: f.Dst, Err: err}
		}
		if f.NoReplace {
			restore()
			return &fs.PathError{Op: "create", Path: f.Dst, Err: fs.ErrExist}
		}
		if !st.Mode().IsRegular() {
			restore()
			return &heldError{Path: f.Dst, Err: &fs.PathError{Op: "replace", Path: f.Dst, Err: errors.New("not a regular file")}}
		}
		old, err := freeName(f.Dst)
		if err != nil {
			restore()
			return &heldError{Path: f.Dst, Err: err}
		}
		if err := os.Rename(f.Dst, old); err != nil {
			os.Remove(old)
			restore()
			return &heldError{Path: f.Dst, Err: err}
		}
		asides = append(asides, aside{old, f.Dst})
	}
	for i, f := range files {
		if f.Tmp == "" {
			continue
		}
		if err := place(f); err != nil {
			for j := i - 1; j >= 0; j-- {
				if files[j].Tmp != "" {
					os.Rename(files[j].Dst, files[j].Tmp)
				}
			}
			restore()
			if errors.Is(err, fs.ErrExist) {
				return err
			}
			return &heldError{Path: f.Dst, Err: err}
		}
	}
	for _, a := range asides {
		os.Remove(a.old)
	}
	return nil
}

// place moves f.Tmp to f.Dst; with NoReplace never over a file created
// meanwhile.
func place(f replaceFile) error { return moveIntoPlace(f.Tmp, f.Dst, f.NoReplace) }

// freeName reserves a hidden name beside dst for the old file while the
// set is put in place.
func freeName(dst string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".old-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	return name, nil
}
