package formats

import (
	"bytes"
	"fmt"
)

// fileKind names a file that is no text diag reads, by its first bytes,
// with what to do instead; "" when it is none of these.
func fileKind(data []byte) (kind, advice string) {
	has := func(off int, magic string) bool {
		return len(data) >= off+len(magic) && string(data[off:off+len(magic)]) == magic
	}
	switch {
	case has(0, "\x89PNG\r\n\x1a\n"):
		return "a PNG image", "a screenshot cannot be read; paste the console text instead"
	case has(0, "\xff\xd8\xff"):
		return "a JPEG image", "a screenshot cannot be read; paste the console text instead"
	case has(0, "GIF87a"), has(0, "GIF89a"):
		return "a GIF image", "a screenshot cannot be read; paste the console text instead"
	case has(0, "%PDF-"):
		return "a PDF document", "copy its text into a file, or ask for the bundle itself"
	case has(0, "\x7fELF"):
		return "a Linux executable", "give diag a bundle, collectlogs output or pasted text"
	case has(0, "MZ") && len(data) >= 64 && bytes.IndexByte(data[:64], 0) >= 0:
		return "a Windows executable or DLL", "give diag a bundle, collectlogs output or pasted text"
	case has(0, "\x1f\x8b"):
		return "a gzip file (a .tar.gz?)", "unpack it (tar xzf FILE) and analyze the folder"
	case has(257, "ustar"):
		return "a tar archive", "unpack it (tar xf FILE) and analyze the folder"
	case has(0, "\xfd7zXZ\x00"):
		return "an xz file", "unpack it (tar xJf FILE or xz -d FILE) and analyze what it holds"
	case has(0, "7z\xbc\xaf\x27\x1c"):
		return "a 7-Zip archive", "unpack it (7z x FILE) and analyze the folder"
	case has(0, "Rar!\x1a\x07"):
		return "a RAR archive", "unpack it and analyze the folder"
	case has(0, "\x28\xb5\x2f\xfd"):
		return "a zstd file", "unpack it (zstd -d FILE) and analyze what it holds"
	case has(0, "\xd4\xc3\xb2\xa1"), has(0, "\xa1\xb2\xc3\xd4"), has(0, "\x4d\x3c\xb2\xa1"), has(0, "\xa1\xb2\x3c\x4d"), has(0, "\x0a\x0d\x0d\x0a"):
		return "a packet capture", "decode it with diag capture decode FILE"
	}
	return "", ""
}

// notText is the error for a file fileKind names.
func notText(kind, advice string) error {
	return fmt.Errorf("%w: it is %s, not a bundle, collectlogs output, JSON or console text: %s", ErrUnidentified, kind, advice)
}
