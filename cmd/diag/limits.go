package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wincni/diag/formats"
)

// parseByteSize reads a size as people write it: 512MiB, 1GiB, 64MB, or
// plain bytes.
func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(t), u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("%q is not a size between 1 byte and 1 TiB (e.g. 256MiB)", s)
	}
	return n * mult, nil
}

// partLimits scales every per-part limit with --max-part-size: the largest
// part read whole; one JSON value may be a sixteenth of it, and a list may
// hold proportionally more objects.
func partLimits(maxPart int64) formats.Limits {
	lim := formats.DefaultLimits
	if maxPart <= 0 || maxPart == lim.MaxPart {
		return lim
	}
	scale := float64(maxPart) / float64(lim.MaxPart)
	lim.MaxPart = maxPart
	lim.MaxJSONValue = max(maxPart/16, 1<<10)
	lim.MaxObjects = max(int(float64(lim.MaxObjects)*scale), 1)
	return lim
}
