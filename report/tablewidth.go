package report

import "github.com/olekukonko/tablewriter/pkg/twwidth"

// widthCacheEntries sizes tablewriter's cache of measured cell widths. Its
// package makes a cache of 8,192 entries as the program starts: 660 KB of
// heap that stays live through the analysis of a large bundle, long before
// any table is drawn. A miss only measures the cell's text again.
const widthCacheEntries = 512

func init() { twwidth.SetCacheCapacity(widthCacheEntries) }
