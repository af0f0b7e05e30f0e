package redact

import (
	"bytes"
	"regexp"
	"strings"
)

// Secrets that stand in a column rather than after a separator: "key
// value" configuration (fluent-bit's HTTP_Passwd, redis' requirepass),
// PowerShell's Name/Value tables (Get-ChildItem env:), and reg query
// ("DefaultPassword    REG_SZ    value"). The key is the line's first
// word; the value is the rest of the line.

var regType *regexp.Regexp

func compileColumns() { regType = regexp.MustCompile(`^REG_[A-Z_]+(?:[ \t]+|$)`) }

// columns redacts the value of a line whose first word is a key naming a
// secret and whose second column is its value.
func (w *Writer) columns(c []byte) []byte {
	start := len(leading(c))
	if bytes.HasPrefix(c[start:], []byte("\ufeff")) {
		start += 3
	}
	k := start
	for k < len(c) && isKeyChar(c[k]) {
		k++
	}
	key := c[start:k]
	// Format-Table cuts a long name: REGISTRY_PASSWO... or …
	truncated := false
	if t := bytes.TrimRight(key, "."); len(key)-len(t) >= 3 && len(t) > 0 {
		key, truncated = t, true
	} else if k > start && bytes.HasPrefix(c[k:], []byte("\u2026")) {
		k += len("\u2026")
		truncated = true
	}
	if len(key) == 0 || k == len(c) || !isSpace(c[k]) {
		return c
	}
	j := k
	for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
		j++
	}
	wide := j-k >= 2 || bytes.IndexByte(c[k:j], '\t') >= 0
	if j == len(c) || c[j] == ':' || c[j] == '=' {
		return c // key: value and key = value are the keyed rules'
	}
	kind := kindOf(string(key))
	if kind == "" && truncated {
		kind = truncatedKind(string(key))
	}
	if kind == "" {
		return c
	}
	if m := regType.FindIndex(c[j:]); m != nil {
		j += m[1] // reg query: the value follows its type
		wide = true
	}
	end := len(c)
	for end > j && (c[end-1] == ' ' || c[end-1] == '\t') {
		end--
	}
	v := c[j:end]
	if len(v) == 0 {
		return c
	}
	if wide {
		// A table of more columns (kubectl get secrets: NAME TYPE DATA
		// AGE) names secrets, it does not hold them.
		if bytes.Contains(v, []byte("  ")) || bytes.IndexByte(v, '\t') >= 0 {
			return c
		}
	} else if !configKey(key) && !(isLowerWord(key) && bytes.IndexByte(v, ' ') < 0) {
		// One space after a plain word is prose ("Password expires
		// Never" is a column of net user, "Token cache full" a log).
		return c
	}
	if !secretValue(string(key), kind, v) {
		return c
	}
	w.count(kind)
	out := append([]byte(nil), c[:j]...)
	out = append(out, quoted(v)...)
	return append(out, c[end:]...)
}

// configKey: a word shaped like a configuration key, not prose:
// HTTP_Passwd, client.secret, default-pass, sharedKey.
func configKey(k []byte) bool {
	if bytes.ContainsAny(k, "_.-") {
		return true
	}
	for i := 1; i < len(k); i++ {
		if k[i] >= 'A' && k[i] <= 'Z' && k[i-1] >= 'a' && k[i-1] <= 'z' {
			return true
		}
	}
	return false
}

func isLowerWord(k []byte) bool {
	for _, b := range k {
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9') {
			return false
		}
	}
	return true
}

// truncatedKind classifies a key whose end was cut: its last word is the
// start of a secret word (REGISTRY_PASSWO, AZURE_CLIENT_SECR).
func truncatedKind(key string) string {
	words := splitKey(key)
	if len(words) == 0 {
		return ""
	}
	last := words[len(words)-1]
	if len(last) < 3 {
		return ""
	}
	for _, w := range []string{"password", "passwd", "passphrase", "secret", "token", "credential", "credentials"} {
		if strings.HasPrefix(w, last) {
			return wordKind(w, "")
		}
	}
	return ""
}
