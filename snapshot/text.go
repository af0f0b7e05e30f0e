package snapshot

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
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
	}
	out := make([]byte, 0, len(u))
	for _, r := range utf16.Decode(u) {
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}
