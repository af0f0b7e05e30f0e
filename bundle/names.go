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

// FileNamePart makes a node name fit a bundle's file name on every system:
// letters, digits, '-', '.' and '_' are kept, anything else becomes '_'.
func FileNamePart(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
