package analyzers

import (
	"fmt"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// epFile is the file an endpoint was read from last, for its evidence.
func epFile(e *snapshot.Endpoint) string { return e.Refs[len(e.Refs)-1].File }

// firstN keeps the first n items of a list a summary names, and says how
// many more there are.
func firstN(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("and %d more", len(items)-n))
}

// orNone lists xs for a summary, or says none.
func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
