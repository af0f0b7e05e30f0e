package redact

import (
	"strings"
)

// Key names. A key names a secret by its last word (after splitting
// snake_case, kebab-case, dotted and camelCase names): aadClientSecret,
// K8S_SERVICE_ACCOUNT_TOKEN, identitytoken, client-key-data, tls.key. A
// secret word inside a longer word does not count (tokenizer, passwordless,
// keyboard, PasswordLastSet), nor do names of a secret's location or kind
// (tokenFile, secretName, token_type).

// keyTrigger is what a key naming a secret must contain; it keeps the
// regular expressions below from looking at every key=value pair.
const keyTrigger = `(?i:pass|pw|secret|token|key|auth|cred|jwt|cookie|signature|dockerc)`

const keyName = `[A-Za-z0-9_.\-]*` + keyTrigger + `[A-Za-z0-9_.\-]*`

// Names that end like this name where or what a secret is, not the secret.
var harmlessSuffixes = []string{"file", "path", "dir", "directory", "name", "type", "ttl", "ref", "source", "expiry",
	"expiration", "expires", "length", "url", "uri", "endpoint", "policy", "count", "mode", "format", "id", "ids",
	"enabled", "required", "header", "prefix", "provider", "version", "kind", "store", "helper", "helpers", "config"}

// Trailing words that say how a secret is written, not what it is.
var qualifiers = map[string]bool{"value": true, "string": true, "data": true, "text": true, "b64": true, "base64": true,
	"plain": true, "plaintext": true, "raw": true, "hex": true, "encoded": true, "literal": true,
	// which of several: DB_PASSWORD_PROD, TOKEN_RO, secret_backup
	"prod": true, "production": true, "dev": true, "test": true, "staging": true, "stage": true, "qa": true,
	"main": true, "backup": true, "old": true, "new": true, "current": true, "previous": true, "prev": true,
	"admin": true, "root": true, "ro": true, "rw": true, "readonly": true, "readwrite": true, "local": true,
	"remote": true, "default": true, "primary": true, "secondary": true}

// What the word before "key" makes of it.
var keyPrefixes = []struct{ prefix, kind string }{
	{"private", KindPrivateKey}, {"client", KindPrivateKey}, {"tls", KindPrivateKey}, {"ssl", KindPrivateKey},
	{"signing", KindSecret}, {"api", KindSecret}, {"secret", KindSecret}, {"encryption", KindSecret},
	{"decryption", KindSecret}, {"validation", KindSecret}, {"app", KindSecret}, {"subscription", KindSecret}, {"hmac", KindSecret}, {"auth", KindSecret},
	{"session", KindSecret}, {"license", KindSecret}, {"webhook", KindSecret}, {"product", KindSecret},
	{"master", KindCloudCred}, {"account", KindCloudCred}, {"storage", KindCloudCred}, {"access", KindCloudCred},
	{"shared", KindCloudCred}, {"sharedaccess", KindCloudCred}, {"sas", KindCloudCred}, {"primary", KindCloudCred},
	{"secondary", KindCloudCred},
}

// Words before "pass" that make it a password (dbpass), unlike bypass.
// keytool's -keypass, -srcstorepass and -destkeypass end in one of them.
var passPrefixes = []string{"db", "root", "admin", "user", "my", "sql", "redis", "ftp", "smtp", "mail", "ldap", "bind",
	"keystore", "truststore", "store", "proxy", "auth", "login", "sa", "web", "api", "app", "key"}

// kindOf classifies a key name; "" when it names no secret.
func kindOf(key string) string {
	k := strings.ToLower(strings.Trim(key, "\"'\\$- \t"))
	if k == "" {
		return ""
	}
	for _, s := range harmlessSuffixes {
		if strings.HasSuffix(k, s) {
			return ""
		}
	}
	if strings.HasSuffix(k, ".key") {
		return KindPrivateKey // tls.key, apiserver-kubelet-client.key: a key file's contents
	}
	words := splitKey(key)
	for len(words) > 1 && qualifiers[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return ""
	}
	// A public key or its token (publicKeyToken in every .NET assembly
	// reference) is published on purpose.
	for i := 0; i+1 < len(words); i++ {
		if words[i] == "public" && strings.HasPrefix(words[i+1], "key") {
			return ""
		}
	}
	last, prev := words[len(words)-1], ""
	if len(words) > 1 {
		prev = words[len(words)-2]
	}
	kind := wordKind(last, prev)
	if (kind == KindSecret || kind == KindToken) && words[0] == "aws" {
		kind = KindCloudCred
	}
	return kind
}

func wordKind(last, prev string) string {
	switch last {
	case "pass", "pw", "passin", "passout", "auth", "dockerconfigjson", "dockercfg", "requirepass", "masterauth", "htpasswd", "creds", "cred":
		return KindPassword
	case "pem":
		if prev == "key" || prev == "private" {
			return KindPrivateKey
		}
		return ""
	}
	for _, s := range []string{"password", "passwd", "passphrase", "passwort", "pwd", "passcode"} {
		if strings.HasSuffix(last, s) {
			return KindPassword
		}
	}
	if strings.HasSuffix(last, "pass") {
		for _, p := range passPrefixes {
			if strings.HasSuffix(last, p+"pass") {
				return KindPassword
			}
		}
	}
	for _, s := range []string{"token", "jwt", "cookie"} {
		if strings.HasSuffix(last, s) {
			return KindToken
		}
	}
	if strings.HasSuffix(last, "sharedaccesssignature") || last == "sas" || last == "sastoken" {
		return KindCloudCred
	}
	for _, s := range []string{"secret", "credential", "credentials"} {
		if strings.HasSuffix(last, s) {
			return KindSecret
		}
	}
	if last == "signature" && (prev == "shared" || prev == "access") {
		return KindCloudCred
	}
	pre := ""
	switch {
	case last == "key":
		pre = prev
	case strings.HasSuffix(last, "key"):
		pre = strings.TrimSuffix(last, "key")
	case last == "keys": // apiKeys: a list of them
		pre = prev
	}
	if pre != "" {
		for _, p := range keyPrefixes {
			if strings.HasSuffix(pre, p.prefix) {
				return p.kind
			}
		}
	}
	return ""
}

// splitKey splits a key name into lower-case words at non-alphanumerics and
// camelCase boundaries, dropping trailing digits (password2).
func splitKey(key string) []string {
	var words []string
	cur := make([]byte, 0, len(key))
	flush := func() {
		w := strings.TrimRight(string(cur), "0123456789")
		if w != "" {
			words = append(words, w)
		}
		cur = cur[:0]
	}
	for i := 0; i < len(key); i++ {
		b := key[i]
		switch {
		case b >= 'A' && b <= 'Z':
			if i > 0 {
				p := key[i-1]
				if p >= 'a' && p <= 'z' || p >= '0' && p <= '9' ||
					p >= 'A' && p <= 'Z' && i+1 < len(key) && key[i+1] >= 'a' && key[i+1] <= 'z' {
					flush()
				}
			}
			cur = append(cur, b+'a'-'A')
		case b >= 'a' && b <= 'z' || b >= '0' && b <= '9':
			cur = append(cur, b)
		default:
			flush()
		}
	}
	flush()
	return words
}

// secretValue says whether a value found under a secret key is a secret:
// not empty, not a JSON/YAML null or boolean, not a variable reference,
// not already redacted, and for keys that may name a file (client-key:
// /etc/kubernetes/pki/client.key, PWD=/root) not a path.
func secretValue(key, kind string, v []byte) bool {
	s := string(v)
	s = strings.TrimPrefix(strings.TrimSuffix(s, `\"`), `\"`)
	s = strings.Trim(s, `"'`)
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "null", "nil", "true", "false", "yes", "no", "~", "none", "<none>", "[]", "{}", "*", "on", "off", "<nil>", "undefined", "opaque":
		return false
	}
	if masked(s) { // "Password : ********": what a tool prints instead of a password
		return false
	}
	if byteSize(s) { // kubectl describe secret: "token: 953 bytes", the size and not the value
		return false
	}
	if verbNoun.MatchString(s) { // $pw = Read-Host, $s = ConvertTo-SecureString ...
		return false
	}
	if strings.Contains(s, Placeholder) || strings.HasPrefix(s, "$") || strings.HasPrefix(s, "%") && strings.HasSuffix(s, "%") {
		return false
	}
	if kind == KindPrivateKey || kind == KindSecret && strings.HasSuffix(strings.ToLower(key), "credentials") ||
		strings.HasSuffix(strings.ToLower(strings.Trim(key, `"'`)), "pwd") {
		if pathValue.MatchString(s) {
			return false
		}
	}
	return true
}

// masked: a run of stars or bullets, what a tool prints instead of a
// secret it will not show; it tells the reader a value was set.
func masked(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		return false
	}
	for _, r := range s {
		if r != '*' && r != '\u2022' && r != '\u25cf' {
			return false
		}
	}
	return true
}

// byteSize: "953 bytes", what kubectl describe prints for each key of a
// Secret instead of its value.
func byteSize(s string) bool {
	n, ok := strings.CutSuffix(strings.TrimSpace(s), " bytes")
	if !ok || n == "" || len(n) > 12 {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}
