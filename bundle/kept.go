package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeptError is a bundle written completely that could not take the place
// of the output because the file at Path, the zip or one that goes with it
// (its .sha256, anonymize's .key or .map.json), could not be replaced (on
// Windows: another program has that file open, an editor or a zip viewer).
// Nothing of the output was changed. The new bundle is kept at Kept,
// beside it, with the files that go with it at Kept + each of Also: a
// collection that took minutes is not thrown away.
type KeptError struct {
	Path, Kept string
	Also       []string // suffixes kept beside Kept: ".sha256", ".key"...
	Err        error    // why Path could not be replaced
}

func (e *KeptError) Error() string {
	reason := e.Err
	var le *os.LinkError
	if errors.As(reason, &le) {
		reason = le.Err
	}
	with := ""
	if len(e.Also) > 0 {
		with = " with its " + strings.Join(e.Also, ", ")
	}
	return fmt.Sprintf("%s could not be replaced (%v; does another program have it open?): nothing was replaced; the bundle is in %s%s", e.Path, reason, e.Kept, with)
}

func (e *KeptError) Unwrap() error { return e.Err }

// BadInput marks the error as the output's, not diag's: the work is done
// and kept, and the command line exits 2 with the one line saying where.
func (e *KeptError) BadInput() bool { return true }

// keepBeside moves the complete file tmp to a new name beside dst
// (bundle.new.zip, bundle.new-2.zip, ...), never replacing a file.
func keepBeside(tmp, dst string) (string, error) {
	ext := filepath.Ext(dst)
	stem := strings.TrimSuffix(dst, ext)
	for i := 1; i <= 100; i++ {
		kept := stem + ".new" + ext
		if i > 1 {
			kept = fmt.Sprintf("%s.new-%d%s", stem, i, ext)
		}
		err := moveIntoPlace(tmp, kept, true)
		if err == nil {
			return kept, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free name beside %s", dst)
}
