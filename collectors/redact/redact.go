// Package redact removes secrets from the text files a collector puts into a
// bundle: kubeconfig tokens and client keys, PEM private keys, bearer tokens,
// passwords in command lines, JSON, YAML, INI and PowerShell, and cloud
// credentials. It never removes IP addresses, MACs or host names: for a
// networking tool they are the evidence. What it removed is reported as
// counts per kind, never as values.
package redact

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
)

// Placeholder replaces every removed value.
const Placeholder = "REDACTED"

// Kinds of secret, as recorded in the manifest.
const (
	KindPrivateKey = "private-key"      // PEM private key blocks, kubeconfig client-key-data
	KindToken      = "token"            // bearer tokens, kubeconfig/service account tokens, JWTs
	KindPassword   = "password"         // password keys and flags, URL user:password@
	KindSecret     = "secret"           // client secrets, API and access keys
	KindCloudCred  = "cloud-credential" // AWS key IDs, Azure AccountKey and SAS signatures
)

// Count is how many values of one kind were removed.
type Count struct {
	Kind  string
	Count int
}

var (
	pemKey = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`)

	// A secret-bearing key name: the word may sit inside a longer name
	// (aadClientSecret, K8S_SERVICE_ACCOUNT_TOKEN, client-key-data).
	keyName = `[A-Za-z0-9_.\-]*(?i:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|account[_\-]?key|private[_\-]?key|client[_\-]key[_\-]data|credentials?)[A-Za-z0-9_.\-]*`
	value   = `"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"',;}\]]+`

	// key: value, key=value, "key": "value", $key = 'value', $env:KEY="value"
	assignment = regexp.MustCompile(`(^|[^A-Za-z0-9_\-])(["']?)(` + keyName + `)(["']?[ \t]*[:=][ \t]*)(` + value + `)`)
	// --token VALUE, --token=VALUE, -Password VALUE (PowerShell parameters)
	flag = regexp.MustCompile(`(^|\s)(--?)(` + keyName + `)(=|[ \t]+)(` + value + `)`)

	// Kubernetes env entries: {"name": "DB_PASSWORD", "value": "..."} and
	// the YAML "- name: DB_PASSWORD\n  value: ...".
	envPairJSON = regexp.MustCompile(`("name"\s*:\s*"(` + keyName + `)"\s*,\s*"value"\s*:\s*)("(?:[^"\\\n]|\\.)*")`)
	envPairYAML = regexp.MustCompile(`(name:[ \t]*["']?(` + keyName + `)["']?[ \t]*\r?\n[ \t]*value:[ \t]*)(` + value + `)`)

	bearer   = regexp.MustCompile(`(?i)(\b(?:bearer|basic)[ \t]+)([A-Za-z0-9\-._~+/]{8,}=*)`)
	jwt      = regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]+`)
	urlCreds = regexp.MustCompile(`(\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@"']+:)([^/\s@"']+)(@)`)
	awsKeyID = regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)
	sasSig   = regexp.MustCompile(`([?&]sig=)([^&\s"']+)`)
)

// Keys that name a secret's location or kind, not the secret itself.
var harmlessSuffixes = []string{"file", "path", "dir", "directory", "name", "type", "ttl", "ref", "source", "expiry", "expiration", "length", "url", "uri", "endpoint"}

// Text returns data with secrets replaced by Placeholder and the counts of
// what was removed, sorted by kind.
func Text(data []byte) ([]byte, []Count) {
	counts := map[string]int{}
	out := pemKey.ReplaceAllFunc(data, func(m []byte) []byte {
		counts[KindPrivateKey]++
		sub := pemKey.FindSubmatch(m)
		label := string(sub[1]) + "PRIVATE KEY"
		return []byte("-----BEGIN " + label + "-----" + Placeholder + "-----END " + label + "-----")
	})
	out = replaceEnvPairs(out, envPairJSON, counts)
	out = replaceEnvPairs(out, envPairYAML, counts)
	out = replaceKeyed(out, assignment, counts)
	out = replaceKeyed(out, flag, counts)
	out = replaceGroup(out, urlCreds, 2, KindPassword, counts)
	out = replaceGroup(out, bearer, 2, KindToken, counts)
	out = jwt.ReplaceAllFunc(out, func([]byte) []byte { counts[KindToken]++; return []byte(Placeholder) })
	out = awsKeyID.ReplaceAllFunc(out, func([]byte) []byte { counts[KindCloudCred]++; return []byte(Placeholder) })
	out = replaceGroup(out, sasSig, 2, KindCloudCred, counts)

	list := make([]Count, 0, len(counts))
	for k, n := range counts {
		list = append(list, Count{k, n})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Kind < list[j].Kind })
	return out, list
}

// replaceKeyed redacts the value group (5) of assignment or flag matches
// whose key names a secret.
func replaceKeyed(data []byte, re *regexp.Regexp, counts map[string]int) []byte {
	return re.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := re.FindSubmatchIndex(m)
		key := string(m[sub[6]:sub[7]])
		val := m[sub[10]:sub[11]]
		kind := kindOf(key)
		if kind == "" || !secretValue(val) {
			return m
		}
		counts[kind]++
		return concat(m[:sub[10]], quoted(val), m[sub[11]:])
	})
}

// replaceEnvPairs redacts group 3 (the value) when group 2 (the variable's
// name) names a secret.
func replaceEnvPairs(data []byte, re *regexp.Regexp, counts map[string]int) []byte {
	return re.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := re.FindSubmatchIndex(m)
		kind := kindOf(string(m[sub[4]:sub[5]]))
		val := m[sub[6]:sub[7]]
		if kind == "" || !secretValue(val) {
			return m
		}
		counts[kind]++
		return concat(m[:sub[6]], quoted(val), m[sub[7]:])
	})
}

func replaceGroup(data []byte, re *regexp.Regexp, group int, kind string, counts map[string]int) []byte {
	return re.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := re.FindSubmatchIndex(m)
		val := m[sub[2*group]:sub[2*group+1]]
		if bytes.Contains(val, []byte(Placeholder)) {
			return m
		}
		counts[kind]++
		return concat(m[:sub[2*group]], []byte(Placeholder), m[sub[2*group+1]:])
	})
}

// kindOf classifies a key name; "" when it names no secret.
func kindOf(key string) string {
	k := strings.ToLower(strings.Trim(key, `"'`))
	for _, s := range harmlessSuffixes {
		if strings.HasSuffix(k, s) {
			return ""
		}
	}
	switch {
	case strings.Contains(k, "client-key-data") || strings.Contains(k, "client_key_data") ||
		strings.Contains(k, "privatekey") || strings.Contains(k, "private_key") || strings.Contains(k, "private-key"):
		return KindPrivateKey
	case strings.Contains(k, "pass") || strings.Contains(k, "pwd"):
		return KindPassword
	case strings.Contains(k, "token"):
		return KindToken
	case strings.Contains(k, "accountkey") || strings.Contains(k, "account_key") || strings.Contains(k, "account-key"):
		return KindCloudCred
	default:
		return KindSecret
	}
}

// secretValue: not empty, not a JSON/YAML null or boolean, not already
// redacted.
func secretValue(v []byte) bool {
	s := strings.Trim(string(v), `"'`)
	switch strings.ToLower(s) {
	case "", "null", "true", "false", "~", "none", "<none>":
		return false
	}
	return !strings.Contains(s, Placeholder) && !strings.HasPrefix(s, "$")
}

// quoted keeps the value's quotes around the placeholder.
func quoted(v []byte) []byte {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return []byte(string(v[0]) + Placeholder + string(v[0]))
	}
	return []byte(Placeholder)
}

func concat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// IsBinary says whether data is not text that Text can safely rewrite:
// compressed archives, ETL traces, executables, or anything with NUL bytes
// (UTF-16 text has them too: callers transcode it first, see ToUTF8).
func IsBinary(data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	for _, magic := range [][]byte{{0x1f, 0x8b}, []byte("PK\x03\x04"), []byte("MZ"), {0x0a, 0x0d, 0x0d, 0x0a}, {0xd4, 0xc3, 0xb2, 0xa1}, []byte("7z\xbc\xaf"), []byte("BZh"), {0xfd, '7', 'z', 'X', 'Z'}} {
		if bytes.HasPrefix(head, magic) {
			return true
		}
	}
	return bytes.IndexByte(head, 0) >= 0
}
