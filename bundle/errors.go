package bundle

import "fmt"

// Error is a problem with the bundle given as input: unreadable, corrupt,
// hostile or over a limit.
type Error struct {
	Path  string // the bundle (zip or directory)
	Entry string // the entry inside it, if the problem is an entry's
	Err   error
}

func (e *Error) Error() string {
	if e.Entry != "" {
		return fmt.Sprintf("%s: entry %q: %v", e.Path, e.Entry, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// BadInput marks the error as the input's, not diag's: the command line
// exits 2 with its one line.
func (e *Error) BadInput() bool { return true }
