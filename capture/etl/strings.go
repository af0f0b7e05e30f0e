package etl

import (
	"encoding/binary"
	"unicode/utf16"
)

// utf16z decodes a NUL-terminated little-endian UTF-16 string at the
// start of b, keeping at most max code units, and returns it with the
// bytes it took (terminator included; all of b when it has none).
func utf16z(b []byte, max int) (string, int) {
	var u []uint16
	i := 0
	for ; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			return string(utf16.Decode(u)), i + 2
		}
		if len(u) < max {
			u = append(u, c)
		}
	}
	return string(utf16.Decode(u)), len(b)
}
