package bundle

import (
	"errors"
	"path"
	"strings"
)

// cleanName turns an entry name into the canonical slash-separated relative
// form, or says why it cannot be one. Backslashes are separators: zips made
// by older Windows tools use them.
func cleanName(name string) (string, error) {
	if name == "" {
		return "", errors.New("empty entry name")
	}
	if strings.ContainsRune(name, 0) {
		return "", errors.New("entry name contains a NUL byte")
	}
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") {
		return "", errors.New("absolute path in bundle")
	}
	if len(n) >= 2 && n[1] == ':' {
		return "", errors.New("absolute (drive letter) path in bundle")
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return "", errors.New("path escapes the bundle (\"..\")")
		}
	}
	c := path.Clean(n)
	if c == "." {
		return "", errors.New("empty entry name")
	}
	return c, nil
}

// ValidName reports whether name is acceptable as a bundle entry name for the
// writer: already clean, relative, inside the bundle.
func ValidName(name string) error {
	c, err := cleanName(name)
	if err != nil {
		return err
	}
	if c != name {
		return errors.New("entry name is not in canonical form (" + c + ")")
	}
	return nil
}

// FileNamePart makes a node name fit a file name on every system, the one
// function for every file named after a node: letters, digits, '-', '.' and
// '_' are kept, anything else becomes '_'; a name whose part before the
// first '.' is one of Windows' device names (con, nul, aux, prn, com1,
// lpt1..., valid Kubernetes node names), which Windows opens as the device
// whatever the extension, gets a '_' after that part (con.zip becomes
// con_.zip); a name of dots alone, or none, becomes underscores.
func FileNamePart(s string) string {
	p := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, s)
	if strings.Trim(p, ".") == "" {
		return strings.Repeat("_", max(1, len(p)))
	}
	stem, rest, dotted := strings.Cut(p, ".")
	if !windowsDevice(stem) {
		return p
	}
	if dotted {
		return stem + "_." + rest
	}
	return stem + "_"
}

// windowsDevice says whether Windows reads name (the part of a file name
// before its first '.') as a device rather than a file.
func windowsDevice(name string) bool {
	switch n := strings.ToLower(name); {
	case n == "con" || n == "prn" || n == "aux" || n == "nul":
		return true
	case len(n) == 4 && (n[:3] == "com" || n[:3] == "lpt") && n[3] >= '0' && n[3] <= '9':
		return true
	}
	return false
}
