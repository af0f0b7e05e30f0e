package formats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strings"
)

// Bundles and pastes arrive from strangers. The bundle reader bounds what
// an archive may inflate to; these limits bound what the parsers hold of one
// part, so that a 1 GiB "kube-proxy command line" or a 200 MB JSON string
// costs a note in the report, not the support engineer's laptop. A part over
// a limit is skipped (the rest is still analyzed) and the note names it, its
// size and the flag that raises the limit.
type Limits struct {
	// MaxPart bounds a part that is read whole (console text, JSON that is
	// not a list, vfpctrl dumps); configuration files get a 64th of it.
	MaxPart int64
	// MaxJSONValue bounds one JSON string, number or run of white space:
	// HNS and Kubernetes values are short; a list is read element by element.
	MaxJSONValue int64
	// MaxObjects bounds the objects read from one list (a node of a
	// 5,000-node cluster has about 100,000 remote endpoints).
	MaxObjects int
}

// DefaultLimits keep any input within a few hundred MiB of memory.
var DefaultLimits = Limits{MaxPart: 64 << 20, MaxJSONValue: 4 << 20, MaxObjects: 200_000}

// LimitFlag is the command-line flag that raises the limits; notes name it.
const LimitFlag = "--max-part-size"

// errPartLimit marks a part skipped for a limit.
var errPartLimit = errors.New("over a limit")

// partLimitError says which limit a part exceeded.
type partLimitError struct{ what string }

func (e *partLimitError) Error() string { return e.what }

func (e *partLimitError) Unwrap() error { return errPartLimit }

// capFor is how much of a part may be read whole.
func (lim Limits) capFor(name string) int64 {
	if strings.HasPrefix(name, "config/") {
		return max(1<<20, lim.MaxPart/64)
	}
	if strings.HasPrefix(name, "vfp/") || strings.Contains(strings.ToLower(name), "vfp") || strings.HasSuffix(strings.ToLower(name), "ports.txt") {
		return lim.MaxPart * 4 // a busy node's VFP dump is the largest text there is
	}
	return lim.MaxPart
}

// jsonGuard passes JSON through and fails at the first string, number or
// run of white space longer than max, before a decoder buffers it whole.
type jsonGuard struct {
	r        io.Reader
	max      int64
	inString bool
	escape   bool
	run      int64 // length of the current string, number or space run
	kind     byte  // 's' string, 'n' number, ' ' space, 0 none
}

func newJSONGuard(r io.Reader, max int64) *jsonGuard { return &jsonGuard{r: r, max: max} }

func (g *jsonGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if e := g.scan(p[:n]); e != nil {
		return 0, e
	}
	return n, err
}

func (g *jsonGuard) scan(b []byte) error {
	for i := 0; i < len(b); i++ {
		if g.inString {
			// Most of a JSON document is string bytes: jump to the next
			// quote or backslash instead of looking at each byte.
			if !g.escape {
				j := quoteOrBackslash(b[i:])
				if j < 0 {
					g.run += int64(len(b) - i)
					if g.run > g.max {
						return g.tooLong()
					}
					return nil
				}
				g.run += int64(j)
				i += j
				if g.run > g.max {
					return g.tooLong()
				}
			}
			g.run++
			c := b[i]
			switch {
			case g.escape:
				g.escape = false
			case c == '\\':
				g.escape = true
			case c == '"':
				g.inString, g.kind, g.run = false, 0, 0
			}
		} else {
			c := b[i]
			var k byte
			switch {
			case c == '"':
				g.inString, g.run = true, 0
				continue
			case c == ' ' || c == '\t' || c == '\r' || c == '\n':
				k = ' '
			case c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E':
				k = 'n'
			}
			if k != g.kind {
				g.kind, g.run = k, 0
			}
			if k != 0 {
				g.run++
			}
		}
		if g.run > g.max {
			return g.tooLong()
		}
	}
	return nil
}

// quoteOrBackslash is the index of the first '"' or '\\' in b, or -1: a
// word at a time (most strings are a few dozen bytes, too short for
// bytes.IndexAny to pay for setting up its search).
func quoteOrBackslash(b []byte) int {
	const ones, low7 = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	// zero has the high bit of each byte of x that is zero, and only of
	// those (no carry crosses a byte).
	zero := func(x uint64) uint64 { return ^((x&low7 + low7) | x | low7) }
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if hit := zero(w^(ones*'"')) | zero(w^(ones*'\\')); hit != 0 {
			return i + bits.TrailingZeros64(hit)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return -1
}

func (g *jsonGuard) tooLong() error {
	what := map[byte]string{'n': "number", ' ': "run of white space"}[g.kind]
	if g.inString {
		what = "string"
	}
	return &partLimitError{fmt.Sprintf("a JSON %s longer than %s", what, byteSize(g.max))}
}

// checkJSONValues is the guard over bytes already in memory.
func checkJSONValues(data []byte, max int64) error {
	g := &jsonGuard{max: max}
	return g.scan(data)
}

// byteSize prints a size the way the limits are given.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// skipNote is the report's note for a part skipped for a limit.
func skipNote(name string, size int64, why string) string {
	s := ""
	if size > 0 {
		s = " (" + byteSize(size) + ")"
	}
	return fmt.Sprintf("skipped %s%s: %s; %s raises the limit", name, s, why, LimitFlag)
}
