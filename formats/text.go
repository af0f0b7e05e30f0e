package formats

import (
	"bytes"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeText returns b as UTF-8. PowerShell 5.1 writes files as UTF-16LE with
// a BOM (`>` and Out-File), and sometimes as UTF-8 with a BOM; both are common
// in what people hand us.
func DecodeText(b []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return b[3:], nil
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return decodeUTF16(b[2:], false)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return decodeUTF16(b[2:], true)
	case len(b) >= 4 && b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0:
		// UTF-16LE without a BOM: ASCII text with every other byte NUL.
		return decodeUTF16(b, false)
	}
	return b, nil
}

func decodeUTF16(b []byte, bigEndian bool) ([]byte, error) {
	if len(b)%2 != 0 {
		return nil, errors.New("UTF-16 text has an odd number of bytes (truncated?)")
	}
	unit := func(i int) rune {
		if bigEndian {
			return rune(b[i])<<8 | rune(b[i+1])
		}
		return rune(b[i]) | rune(b[i+1])<<8
	}
	// One pass, no intermediate []uint16 or []rune: ASCII (nearly all of
	// what HNS and the console print) takes one byte per unit.
	out := make([]byte, 0, len(b)/2)
	for i := 0; i < len(b); i += 2 {
		r := unit(i)
		switch {
		case r < utf8.RuneSelf:
			out = append(out, byte(r))
			continue
		case utf16.IsSurrogate(r) && i+3 < len(b):
			if dec := utf16.DecodeRune(r, unit(i+2)); dec != utf8.RuneError {
				r = dec
				i += 2
			} else {
				r = utf8.RuneError
			}
		case utf16.IsSurrogate(r):
			r = utf8.RuneError
		}
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}
