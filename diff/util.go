package diff

import (
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// addr prints an address, or nothing when it is not set.
func addr(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

func itoa(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// set joins distinct values in sorted order, so that order alone is never
// a change.
func set(vals []string) string {
	seen := make(map[string]bool, len(vals))
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// field adds a "changed" change when the values differ.
func (c *comparer) field(base Change, name, old, new string) {
	if old == new {
		return
	}
	base.Field, base.Old, base.New, base.Change = name, old, new, Changed
	c.add(base)
}

var guidRE = regexp.MustCompile(`\{?` + snapshot.GUIDPattern + `\}?`)

// isGUID reports an HNS object ID: they change when the object is recreated.
func isGUID(s string) bool {
	m := guidRE.FindString(s)
	return m != "" && len(m) == len(s)
}

// keyed indexes objects by a key; a key found twice gets "#2", "#3", so
// that duplicates pair up in order instead of hiding each other.
func keyed[T any](objs []T, key func(T) string) (map[string]T, []string) {
	m := make(map[string]T, len(objs))
	var order []string
	for _, o := range objs {
		k := key(o)
		if _, dup := m[k]; dup {
			for i := 2; ; i++ {
				if _, taken := m[k+"#"+strconv.Itoa(i)]; !taken {
					k += "#" + strconv.Itoa(i)
					break
				}
			}
		}
		m[k] = o
		order = append(order, k)
	}
	sort.Strings(order)
	return m, order
}

// pairs walks the keys of both sides in sorted order: removed (only old),
// added (only new) and both.
func pairs[T any](old, new map[string]T, oldKeys, newKeys []string, each func(k string, o, n T, inOld, inNew bool)) {
	keys := append(append([]string{}, oldKeys...), newKeys...)
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 && keys[i-1] == k {
			continue
		}
		o, inOld := old[k] // the zero value when missing
		n, inNew := new[k]
		each(k, o, n, inOld, inNew)
	}
}

// lessName orders addresses numerically and anything else as text.
func lessName(a, b string) bool {
	x, errA := netip.ParseAddr(a)
	y, errB := netip.ParseAddr(b)
	if errA == nil && errB == nil {
		return x.Less(y)
	}
	return a < b
}
