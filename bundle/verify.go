package bundle

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Problem is one integrity problem found by Verify.
type Problem struct {
	Entry  string `json:"entry"`
	Kind   string `json:"kind"` // checksum, size, missing, unlisted, sidecar, unreadable
	Detail string `json:"detail"`
}

func (p Problem) String() string {
	if p.Entry == "" {
		return fmt.Sprintf("%s: %s", p.Kind, p.Detail)
	}
	return fmt.Sprintf("%s: %s: %s", p.Entry, p.Kind, p.Detail)
}

// ErrNoManifest means there is nothing to verify against.
var ErrNoManifest = errors.New("no manifest.json: nothing to verify against")

// Unlisted reports a manifest that lists no file at all (a bundle put
// together by hand, which needs only format, version and node): there is
// no checksum to verify, and its entries are not "unlisted" problems.
func Unlisted(b *Bundle) bool {
	return b.Manifest != nil && len(b.Manifest.Files) == 0
}

// Verify checks every entry against the manifest's size and SHA-256, lists
// entries missing from either side, and checks the zip against its sidecar
// <zip>.sha256 when there is one. It returns an error only when the bundle
// cannot be verified at all.
func Verify(b *Bundle) ([]Problem, error) {
	if b.Manifest == nil {
		return nil, &Error{Path: b.path, Err: ErrNoManifest}
	}
	var problems []Problem
	if !b.isDir && !b.single {
		if p, err := verifySidecar(b.path); err != nil {
			return nil, err
		} else if p != nil {
			problems = append(problems, *p)
		}
	}
	listed := map[string]bool{}
	for _, fe := range b.Manifest.Files {
		listed[fe.Path] = true
		if !b.Has(fe.Path) {
			problems = append(problems, Problem{Entry: fe.Path, Kind: "missing", Detail: "listed in the manifest but not in the bundle"})
			continue
		}
		sum, n, err := hashEntry(b, fe.Path)
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, err
			}
			problems = append(problems, Problem{Entry: fe.Path, Kind: "unreadable", Detail: cause(err).Error()})
			continue
		}
		if n != fe.Size {
			problems = append(problems, Problem{Entry: fe.Path, Kind: "size", Detail: fmt.Sprintf("manifest says %d bytes, entry has %d", fe.Size, n)})
		}
		if !strings.EqualFold(sum, fe.SHA256) {
			problems = append(problems, Problem{Entry: fe.Path, Kind: "checksum", Detail: fmt.Sprintf("SHA-256 is %s, manifest says %s", sum, fe.SHA256)})
		}
	}
	for _, name := range b.Names() {
		if name != ManifestPath && !listed[name] && !Unlisted(b) {
			problems = append(problems, Problem{Entry: name, Kind: "unlisted", Detail: "in the bundle but not in the manifest"})
		}
	}
	return problems, nil
}

func hashEntry(b *Bundle, name string) (string, int64, error) {
	rc, err := b.Open(name)
	if err != nil {
		return "", 0, err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// verifySidecar compares the zip's SHA-256 with <zip>.sha256 (sha256sum
// format) when the sidecar exists.
func verifySidecar(zipPath string) (*Problem, error) {
	data, err := readSmall(zipPath+".sha256", maxSidecar)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Path: zipPath + ".sha256", Err: unwrapPathError(err)}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	want, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	if len(want) != sha256.Size*2 {
		return &Problem{Kind: "sidecar", Detail: zipPath + ".sha256 does not hold a SHA-256"}, nil
	}
	f, _, err := openRegular(zipPath)
	if err != nil {
		return nil, &Error{Path: zipPath, Err: unwrapPathError(err)}
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, bufio.NewReader(f)); err != nil {
		return nil, &Error{Path: zipPath, Err: err}
	}
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, want) {
		return &Problem{Kind: "sidecar", Detail: fmt.Sprintf("zip SHA-256 is %s, %s.sha256 says %s", got, zipPath, want)}, nil
	}
	return nil, nil
}

// cause drops the bundle and entry names from err, which a Problem already carries.
func cause(err error) error {
	var be *Error
	if errors.As(err, &be) {
		return be.Err
	}
	return err
}
