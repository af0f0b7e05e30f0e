package anonymize

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wincni/diag/ownerfile"
)

// Key is the secret every pseudonym derives from: the same key maps the
// same address, MAC and name the same way in every bundle, so bundles of
// several nodes anonymized with one key still line up.
type Key [32]byte

// NewKey returns a random key.
func NewKey() (Key, error) {
	var k Key
	if _, err := rand.Read(k[:]); err != nil {
		return k, fmt.Errorf("random key: %w", err)
	}
	return k, nil
}

// maxKeyFile bounds what ReadKeyFile reads: a key file is one line.
const maxKeyFile = 4096

// ReadKeyFile reads a key written by WriteKeyFile: 64 hex digits.
func ReadKeyFile(path string) (Key, error) {
	var k Key
	f, err := os.Open(path)
	if err != nil {
		return k, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return k, fmt.Errorf("read %s: %w", path, err)
	}
	s := strings.TrimSpace(string(b))
	if len(b) > maxKeyFile || len(s) != 64 {
		return k, fmt.Errorf("%s: expected a key of 64 hex digits (as diag bundle anonymize writes it)", path)
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, fmt.Errorf("%s: expected a key of 64 hex digits (as diag bundle anonymize writes it)", path)
	}
	return k, nil
}

// WriteKeyFile writes k readable by its owner only, refusing to replace a file.
func WriteKeyFile(path string, k Key) error {
	f, err := ownerfile.Create(path)
	if err != nil {
		return err
	}
	if err := WriteKey(f, k); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// WriteKey writes k as a key file holds it: one line of 64 hex digits.
func WriteKey(w io.Writer, k Key) error {
	_, err := fmt.Fprintln(w, hex.EncodeToString(k[:]))
	return err
}

// derive is a subkey for one use, so that no two uses share key material.
func (k Key) derive(use string) []byte {
	m := hmac.New(sha256.New, k[:])
	m.Write([]byte("diag anonymize v2 " + use))
	return m.Sum(nil)
}

// ID names the key without revealing it: two bundles whose manifests show
// the same ID were anonymized with the same key, and can be compared.
func (k Key) ID() string { return hex.EncodeToString(k.derive("id")[:8]) }
