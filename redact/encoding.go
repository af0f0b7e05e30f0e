package redact

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Windows writes UTF-16LE text: PowerShell's redirections with a byte
// order mark, cmd /u and some tools without one. Redaction reads UTF-8, so
// such text is transcoded first; left as UTF-16 it would look binary (NUL
// bytes) and be left out of a bundle, and a secret in it could not be
// found.

// utf16Sample is how much of a file decides whether it is UTF-16 without
// a byte order mark.
const utf16Sample = 4096

// Decode returns data as UTF-8 when it is UTF-16 (LE or BE, with a byte
// order mark, or without one when it looks like UTF-16 text), else data
// as it is.
func Decode(data []byte) []byte {
	switch {
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xFE:
		return fromUTF16(data[2:], false)
	case len(data) >= 2 && data[0] == 0xFE && data[1] == 0xFF:
		return fromUTF16(data[2:], true)
	}
	if be, ok := bomlessUTF16(data); ok {
		return fromUTF16(data, be)
	}
	return data
}

// LooksUTF16 says whether head, the first bytes of a file, is UTF-16 text
// (with a byte order mark or without).
func LooksUTF16(head []byte) bool {
	if len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) {
		return true
	}
	_, ok := bomlessUTF16(head)
	return ok
}

// bomlessUTF16 recognises UTF-16 text without a byte order mark: most
// units of its sample have a zero high byte (text in a Latin script), on
// the same side, and the units are characters, not control codes.
func bomlessUTF16(data []byte) (bigEndian, ok bool) {
	n := min(len(data), utf16Sample) / 2
	if n < 2 {
		return false, false
	}
	var zeroLo, zeroHi int // zero bytes at even and odd offsets
	for i := 0; i < n; i++ {
		if data[2*i] == 0 {
			zeroLo++
		}
		if data[2*i+1] == 0 {
			zeroHi++
		}
	}
	switch {
	case zeroHi*10 >= n*3 && zeroLo*10 <= n:
		bigEndian = false
	case zeroLo*10 >= n*3 && zeroHi*10 <= n:
		bigEndian = true
	default:
		return false, false
	}
	bad := 0
	for i := 0; i < n; i++ {
		u := uint16(data[2*i]) | uint16(data[2*i+1])<<8
		if bigEndian {
			u = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		}
		if u < 0x20 && u != '\t' && u != '\n' && u != '\r' && u != '\f' && u != 0x1b || u == 0xFFFE || u == 0xFFFF {
			bad++
		}
	}
	return bigEndian, bad*50 <= n // at most 2% control codes
}

func fromUTF16(b []byte, bigEndian bool) []byte {
	units := make([]uint16, len(b)/2)
	for i := range units {
		if bigEndian {
			units[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			units[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
	}
	out := make([]byte, 0, len(units)+len(units)/8)
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	if len(b)%2 == 1 { // a file cut inside its last character
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	return out
}

// IsBinary says whether data is not text that Text can safely rewrite:
// compressed archives, ETL traces, executables, or data with control
// codes throughout. NUL bytes alone do not make text binary (a log padded
// with NULs after a crash is still a log); UTF-16 is binary to Text, whose
// patterns would not see its words: callers transcode it first (Decode).
func IsBinary(data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	for _, magic := range [][]byte{{0x1f, 0x8b}, []byte("PK\x03\x04"), []byte("MZ"), {0x0a, 0x0d, 0x0d, 0x0a}, {0xd4, 0xc3, 0xb2, 0xa1}, []byte("7z\xbc\xaf"), []byte("BZh"), {0xfd, '7', 'z', 'X', 'Z'}, []byte("%PDF"), {0x28, 0xb5, 0x2f, 0xfd}} {
		if bytes.HasPrefix(head, magic) {
			return true
		}
	}
	if bytes.IndexByte(head, 0) < 0 {
		return false
	}
	if LooksUTF16(head) {
		return true // read as bytes, its words are split by NULs: Decode it first
	}
	var rest, control int
	for _, b := range head {
		if b == 0 {
			continue
		}
		rest++
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != '\v' && b != 0x1b || b == 0x7f {
			control++
		}
	}
	// Control codes among the rest: binary.
	return control*50 > rest
}
