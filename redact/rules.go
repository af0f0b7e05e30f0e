package redact

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// A value: a double-quoted string (JSON escapes), a JSON-escaped
// double-quoted string inside another string (\"...\"), a single-quoted
// string (” escapes), or a bare word.
// A command-line argument: quoted, or a bare word that is not a flag or
// a variable.
const argValue = `"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\s"'\-$(|][^\s"']*`

const value = `\\"(?:[^"\\\n]|\\[^"\n])*\\"|"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\s"',;=(){}\[\]<>|][^\s"',;}\]]*`

// compileRules builds the patterns on first use (through compiled), not
// at program start: only collect and bundle redact need them, and
// compiling them took 1.5 ms and 870 KB at every start of diag.
func compileRules() {
	beginMarker = regexp.MustCompile(`-{4,5} ?BEGIN ((?:[A-Z0-9]+ )*(?:PRIVATE|SECRET) KEY(?: BLOCK)?) ?-{4,5}`)
	endMarkerRe = regexp.MustCompile(`-{4,5} ?END (?:[A-Z0-9]+ )*(?:PRIVATE|SECRET) KEY(?: BLOCK)? ?-{4,5}`)

	// base64 of "-----BEGIN": a PEM block encoded once more (Kubernetes
	// secret data, kubeconfig client-key-data).
	b64PEM = regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}`)

	// key: |  or  - password: >-   (YAML block scalars)
	blockStart = regexp.MustCompile(`^([ \t]*(?:-[ \t]+)?)(["']?)(` + keyName + `)["']?[ \t]*:[ \t]*(?:!!?[A-Za-z]+[ \t]+)?[|>][-+0-9]*[ \t]*(?:#.*)?$`)
	// - name: DB_PASSWORD  (a Kubernetes env entry; its value follows)
	// (PowerShell's Format-List of the environment or a hashtable says the
	// same: "Name  : DB_PASSWORD" then "Value : ...".)
	// (JSON one property a line ends it with a comma: "Key":  "ACR_PASSWORD",)
	envNameLine = regexp.MustCompile(`^[ \t]*(?:-[ \t]+)?["']?(?i:name|key)["']?[ \t]*:[ \t]*["']?(` + keyName + `)["']?[ \t]*,?[ \t]*$`)
	// "adminPassword": {  (an ARM parameter: its "value" follows)
	objectKeyLine = regexp.MustCompile(`^[ \t]*["']?(` + keyName + `)["']?[ \t]*:[ \t]*\{[ \t]*$`)
	// @{Name=DB_PASSWORD; Value=x}: a PowerShell hashtable or object as a string.
	psHashPair = regexp.MustCompile(`(?i)@\{(?:Name|Key)=(` + keyName + `);[ \t]*Value=([^;}\r\n]*)`)
	envValueLine = regexp.MustCompile(`^([ \t]*(?:-[ \t]+)?["']?(?i:value)["']?[ \t]*:[ \t]*)(.*?)[ \t]*$`)
	puttyPrivate = regexp.MustCompile(`^[ \t]*Private-Lines:[ \t]*([0-9]{1,5})[ \t]*$`)

	// A line-start key, whose unquoted value is the rest of the line.
	lineStart = regexp.MustCompile(`^[ \t]*(?:#[ \t]*)?(?:-[ \t]+)?(?:(?i:export|set|setx|declare|readonly|local)[ \t]+|\$(?i:env):|\$)?$`)
	// Where a value that runs to the end of the line stops: at the next
	// flag or key=value pair.
	valueStop = regexp.MustCompile(`(?:[ \t]+|[ \t]*[,;][ \t]*)(?:--?[A-Za-z][\w\-]*(?:[= \t]|$)|[A-Za-z_][\w.\-]*(?:=|:(?:[ \t]|$)))`)

	// Kubernetes env entries in JSON or YAML flow: {"name": "DB_PASSWORD", "value": "..."}
	// (ConvertTo-Json -Compress: {"Name":"X","Key":"X","Value":"..."}, capitalised)
	envPairInline = regexp.MustCompile(`(["']?(?i:name|key)["']?\s*:\s*["']?(` + keyName + `)["']?\s*,\s*(?:["']?(?i:key)["']?\s*:\s*"[^"\n]*"\s*,\s*)?["']?(?i:value)["']?\s*:\s*)(` + value + `)`)

	// Authorization and Cookie headers, in a log, a curl -H, JSON or a Go map dump.
	authHeader = regexp.MustCompile(`(?i)(\b(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\[?[ \t]*\\?["']?[ \t]*)(?:([A-Za-z][A-Za-z0-9_\-]*)([ \t]+))?([^\s"'\\\],]+)`)
	cookieHdr = regexp.MustCompile(`(?i)(\b(?:set-)?cookie\\?["']?[ \t]*:[ \t]*\[?[ \t]*\\?["']?[ \t]*)([^"'\]\r\n\\]+)`)

	// PowerShell and Windows command lines.
	secureString = regexp.MustCompile(`(?i)(ConvertTo-SecureString(?:[ \t]+-(?:AsPlainText|Force)(?::\$true)?)*[ \t]+(?:-String[ \t]+)?)(` + argValue + `)`)
	// ConvertTo-SecureString $p -AsPlainText: the variable holds the plain text.
	// (piped: $p | ConvertTo-SecureString; a NetworkCredential takes it plain)
	secureStrVar = regexp.MustCompile(`(?i)ConvertTo-SecureString(?:[ \t]+-(?:AsPlainText|Force)(?::\$true)?)*[ \t]+(?:-String[ \t]+)?\$([A-Za-z_][A-Za-z0-9_]*)|\$([A-Za-z_][A-Za-z0-9_]*)[ \t]*\|[ \t]*ConvertTo-SecureString|NetworkCredential\s*(?:\(|-ArgumentList)\s*@?\(?\s*(?:"[^"\n]*"|'[^'\n]*'|\$\w+)\s*,\s*\$([A-Za-z_][A-Za-z0-9_]*)`)
	secureStrParam = regexp.MustCompile(`(?i)((?:^|\s)-String[ \t]+)(` + argValue + `)`)
	secureStrPipe = regexp.MustCompile(`(?i)("(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*')([ \t]*\|[ \t]*ConvertTo-SecureString)`)
	netUser = regexp.MustCompile(`(?i)(\bnet(?:\.exe)?[ \t]+user[ \t]+(?:"[^"\n]*"|[^\s/"]+)[ \t]+)("[^"\n]*"|[^\s"/*][^\s"]*)`)
	netUse = regexp.MustCompile(`(?i)(\bnet(?:\.exe)?[ \t]+use[ \t]+(?:(?:[A-Za-z]:|\*)[ \t]+)?(?:"\\\\[^"\n]*"|\\\\\S+)[ \t]+)("[^"\n]*"|[^\s"/*][^\s"]*)`)
	// setx KEY VALUE, aws configure set KEY VALUE, redis CONFIG SET requirepass VALUE
	setx = regexp.MustCompile(`(?i)(\b(?:setx(?:\.exe)?|configure[ \t]+set|config[ \t]+set)[ \t]+(` + keyName + `)[ \t]+)(` + value + `)`)
	// .netrc: machine HOST login USER password PASS
	netrc = regexp.MustCompile(`(?i)(\b(?:machine|default)\b.*?\b(?:password|passwd)[ \t]+)(` + value + `)`)
	// net use \\host\share /user:DOMAIN\user PASS
	netUseAfter = regexp.MustCompile(`(?i)(\bnet(?:\.exe)?[ \t]+use\b.*?[ \t]/user:\S+[ \t]+)("[^"\n]*"|[^\s"/*][^\s"]*)`)
	setEnvVar = regexp.MustCompile(`(?i)(SetEnvironmentVariable\(\s*["'](` + keyName + `)["']\s*,\s*)("(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*')`)
	netCredential = regexp.MustCompile(`(?i)(NetworkCredential\s*(?:\(|-ArgumentList)\s*@?\(?\s*(?:"[^"\n]*"|'[^'\n]*'|\$\w+)\s*,\s*)("(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*')`)
	// /p:PASS /pass:PASS /password:PASS /rp:PASS /pd:PASS, and /u:USER /user:USER
	winSlash = regexp.MustCompile(`(?i)((?:^|[\s"'])/(p|pw|pwd|pass|passwd|password|rp|pd|po|passwordd|passwordo|u|user|username|ud|uo|userd|usero)[:=])("[^"\n]*"|'[^'\n]*'|[^\s"']+)`)
	// schtasks /rp PASS; /u USER /p PASS (schtasks /s, psexec-like tools)
	winSlashSp = regexp.MustCompile(`(?i)((?:^|\s)/(rp|p|u)[ \t]+)("[^"\n]*"|[^\s"/][^\s"]*)`)
	// -u USER -p PASS, mysql -uroot -pPASS, docker login -u x -p y
	unixUser = regexp.MustCompile(`(?:^|\s)(?:-u[ \t]*\S|--user[= \t]|--username[= \t])`)
	mysqlCmd = regexp.MustCompile(`(?i)\b(?:mysql|mysqldump|mysqladmin|mysqlsh|mysqlimport|mariadb|mariadb-dump)(?:\.exe)?\b`)
	// Commands whose -p takes a password without any -u: sshpass -p PASS,
	// certutil -p PASS -importpfx
	passCmd = regexp.MustCompile(`(?i)\b(?:sshpass|certutil|psexec|psexec64|paexec)(?:\.exe)?\b`)
	// sqlcmd -S host -U sa -P PASS (bcp, osql)
	sqlCmd = regexp.MustCompile(`(?i)\b(?:sqlcmd|bcp|osql|isql)(?:\.exe)?\b`)
	unixPass = regexp.MustCompile(`((?:^|\s)-p)([ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s]*)`)
	sqlPass = regexp.MustCompile(`((?:^|\s)-P)([ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s]*)`)
	// curl -u user:pass, --user user:pass, -U / --proxy-user
	curlUser = regexp.MustCompile(`((?:^|\s)(?:-u[ \t]*|-U[ \t]*|--user[= \t][ \t]*|--proxy-user[= \t][ \t]*)["']?[^\s:"']+:)([^\s"']+)`)

	// Connection strings: Server=..;User ID=sa;Password=my pass;  AccountKey=..;
	connPair = regexp.MustCompile(`(^|;|["'\s])([A-Za-z][A-Za-z0-9 _.:\-]*?)([ \t]*=[ \t]*)([^;"'\r\n]*)`)

	// XML: <Password>x</Password>, <AdministratorPassword><Value>x</Value>,
	// <add key="ApiKey" value="x" />
	xmlElem = regexp.MustCompile(`<(` + xmlPrefix + keyName + `)(?:\s[^>]*)?>(?:\s*<(?:Value|Key)>)?([^<]+)<`)
	xmlAttr = regexp.MustCompile(`(?i)(\b(?:key|name)\s*=\s*"(` + xmlKeyPrefix + keyName + `)"\s+value\s*=\s*")([^"]*)"`)
	// The same with other attributes between, or the value first:
	// <property name="db.password" type="string" value="..."/>, <add value="..." key="ApiKey"/>.
	xmlAttrApart = regexp.MustCompile(`<[A-Za-z][\w:.\-]*\s[^>]*?\b(?i:key|name)\s*=\s*"(` + xmlKeyPrefix + keyName + `)"[^>]*?\s(?i:value)\s*=\s*("[^"]*"|'[^']*')`)
	xmlAttrFirst = regexp.MustCompile(`<[A-Za-z][\w:.\-]*\s[^>]*?\b(?i:value)\s*=\s*("[^"]*"|'[^']*')[^>]*?\s(?i:key|name)\s*=\s*"(` + xmlKeyPrefix + keyName + `)"`)

	urlCreds = regexp.MustCompile(`(\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@"']*:)([^/\s@"']+)(@)`)
	bearer = regexp.MustCompile(`(?i)(\b(bearer|basic)[ \t]+)([A-Za-z0-9\-._~+/]{8,}=*)`)
	jwt = regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]+`)
	awsKeyID = regexp.MustCompile(`\b(?:AKIA|ASIA|AROA|AIDA)[0-9A-Z]{16}\b`)
	sasSig = regexp.MustCompile(`(?i)([?&](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)=)([^&\s"'<>]+)`)
	// Tokens that say what they are by their prefix.
	prefixed = regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255}|glpat-[A-Za-z0-9_\-]{20,}|xox[abposre]-[A-Za-z0-9\-]{10,}|xoxe\.xox[bp]-[0-9]-[A-Z0-9]{20,}|npm_[A-Za-z0-9]{36}|AIza[0-9A-Za-z_\-]{35}|(?:sk|rk)_live_[A-Za-z0-9]{20,}|hf_[A-Za-z0-9]{30,})\b`)
	portLike = regexp.MustCompile(`^[0-9.:\-]+(?:/(?:tcp|udp|sctp))?$`)
	// A PowerShell command (approved verbs that produce a value).
	verbNoun = regexp.MustCompile(`^(?i:Get|Read|New|ConvertTo|ConvertFrom|Import|Export|Invoke|Select|Join|Format|Out|Test|Resolve|Find|Search|Receive|Request|Unprotect|Protect)-[A-Z][A-Za-z]+$`)
	pathValue = regexp.MustCompile(`^(?:/|\./|\.\./|~/|[A-Za-z]:[\\/]|\\\\|%[A-Za-z_]+%)[^\s]*$`)
	compileColumns()
	compileOverLines()
	compileK8sSecret()
	compileCmdline()
	compileXML()
	compileTokens()
	compileNextLine()
	compileKeyVault()
}

var compiled sync.Once

// The patterns, set by compileRules.
var (
	objectKeyLine, psHashPair, xmlAttrApart, xmlAttrFirst,
	beginMarker, endMarkerRe, b64PEM, blockStart, envNameLine, envValueLine, puttyPrivate, lineStart, valueStop, envPairInline, authHeader, cookieHdr, secureString, secureStrVar, secureStrParam, secureStrPipe, netUser, netUse, setx, netrc, netUseAfter, setEnvVar, netCredential, winSlash, winSlashSp, unixUser, mysqlCmd, passCmd, sqlCmd, unixPass, sqlPass, curlUser, connPair, xmlElem, xmlAttr, urlCreds, bearer, jwt, awsKeyID, sasSig, prefixed, portLike, verbNoun, pathValue *regexp.Regexp
)

// Authorization schemes whose credentials follow a space.
var authSchemes = map[string]bool{"basic": true, "bearer": true, "token": true, "digest": true, "negotiate": true,
	"ntlm": true, "kerberos": true, "sharedkey": true, "sharedkeylite": true, "sharedaccesssignature": true,
	"aws4-hmac-sha256": true, "hmac": true, "apikey": true, "api-key": true, "key": true, "bot": true, "oauth": true,
	"jwt": true, "mac": true, "hoba": true, "mutual": true, "vapid": true, "signature": true, "sso-key": true,
	"ssws": true, "splunk": true, "dpop": true, "gitlab": true, "pat": true}

// plain handles a line outside any multi-line construct; it may start one.
func (w *Writer) plain(c, term []byte) {
	if len(bytes.TrimSpace(c)) == 0 {
		w.emit(c, term)
		return
	}
	w.watchKind(c)
	if w.data.active && w.dataEntry(c, term) {
		return
	}
	defer w.startData(c)
	if w.wrapCol > 0 && w.wrapped(c, term) {
		return
	}
	if w.next.kind != "" && w.yamlNext(c, term) {
		return
	}
	if w.csv.fields > 0 {
		if r, ok := w.csvRow(c); ok {
			w.emit(r, term)
			return
		}
		w.csv = csvTable{}
	}
	if c[0] == '"' || bytes.IndexByte(c, ' ') < 0 && (bytes.IndexByte(c, ',') >= 0 || bytes.IndexByte(c, ';') >= 0) {
		if w.csvHeader(c, w.lowerOf(c)) {
			w.emit(c, term)
			return
		}
	}
	if n := len(c); c[n-1] == ':' || (c[n-1] == ' ' || c[n-1] == '\t') && bytes.HasSuffix(bytes.TrimRight(c, " \t"), []byte(":")) {
		defer w.startNext(c)
	}
	if w.pend.prefix != nil {
		if r, ok := w.joinPending(c); ok {
			w.emit(r, term)
			w.setPending(c)
			return
		}
	}
	lower := w.lowerOf(c)
	if w.archLeft > 0 {
		w.archLeft--
		if bytes.Contains(lower, []byte("-p")) || bytes.Contains(lower, []byte("-hp")) {
			c = w.archiverItem(c)
			lower = w.lowerOf(c)
		}
	}
	if listLine(c[len(leading(c)):]) && hasAny(lower, "7z", "rar") && archiverWord.Match(c) {
		// The archiver's name in a list: its arguments may follow over lines.
		w.archLeft = archiverSpan
	}
	w.setPending(c)

	// The value line of a secret env variable named on the line before.
	if kind := w.envKind; kind != "" {
		w.envKind = ""
		if m := envValueLine.FindSubmatchIndex(c); m != nil {
			v := c[m[4]:m[5]]
			if len(v) > 0 && (v[0] == '|' || v[0] == '>') {
				w.startBlock(c, term, m[2]+bytes.Index(c[m[2]:], []byte("value")), kind)
				return
			}
			if e := scanValue(v, 0); e > 0 && secretValue("value", kind, v[:e]) {
				// Quoted: the quoted string; bare: the rest of the line.
				if v[0] == '"' || v[0] == '\'' {
					v = v[:e]
				}
				w.count(kind)
				r := append(append(append([]byte(nil), c[:m[4]]...), quoted(v)...), c[m[4]+len(v):]...)
				w.noteWrap(c, r)
				w.emit(r, term)
				return
			}
		}
	}
	if blockCandidate(c) {
		if m := blockStart.FindSubmatchIndex(c); m != nil {
			if kind := kindOf(string(c[m[6]:m[7]])); kind != "" {
				w.startBlock(c, term, m[6], kind)
				return
			}
		}
	}
	if t := bytes.TrimLeft(lower, " \t-"); bytes.HasPrefix(t, []byte("name")) || bytes.HasPrefix(t, []byte("key")) || len(t) > 0 && (t[0] == '"' || t[0] == '\'') && (bytes.HasPrefix(t[1:], []byte("name")) || bytes.HasPrefix(t[1:], []byte("key"))) {
		if m := envNameLine.FindSubmatchIndex(c); m != nil {
			w.envKind = kindOf(string(c[m[2]:m[3]]))
		}
	}
	if n := len(c); c[n-1] == '{' || c[n-1] == ' ' || c[n-1] == '\t' {
		if m := objectKeyLine.FindSubmatchIndex(c); m != nil {
			w.envKind = kindOf(string(c[m[2]:m[3]]))
		}
	}
	if has(lower, "private-lines") {
		if m := puttyPrivate.FindSubmatchIndex(c); m != nil {
			n, _ := strconv.Atoi(string(c[m[2]:m[3]]))
			w.emit(c, term)
			if n > 0 {
				w.st, w.left, w.emitted = stPutty, n, false
			}
			return
		}
	}
	if w.xmlClose != nil || bytes.IndexByte(c, '<') >= 0 {
		c = w.xmlLine(c)
	}
	if w.kvIndent > 0 || has(lower, "/secrets/") {
		c = w.keyVault(c, lower)
		lower = w.lowerOf(c)
	}
	r := w.rules(c, lower)
	w.noteWrap(c, r)
	if bytes.IndexByte(r, '$') >= 0 && bytes.IndexByte(r, '=') >= 0 {
		w.noteLiterals(r)
	}
	w.emit(r, term)
}

func (w *Writer) startBlock(c, term []byte, keyCol int, kind string) {
	w.emit(c, term)
	w.st, w.indent, w.kind, w.emitted = stBlock, keyCol, kind, false
	w.blanks = w.blanks[:0]
}

func (w *Writer) lowerOf(c []byte) []byte {
	w.lower = append(w.lower[:0], c...)
	for i, b := range w.lower {
		if b >= 'A' && b <= 'Z' {
			w.lower[i] = b + 'a' - 'A'
		}
	}
	return w.lower
}

func has(lower []byte, s string) bool { return bytes.Contains(lower, []byte(s)) }

func hasAny(lower []byte, ss ...string) bool {
	for _, s := range ss {
		if bytes.Contains(lower, []byte(s)) {
			return true
		}
	}
	return false
}

// rules applies the single-line rules to c; lower is c in lower case (as
// it was before any rule: rules only shorten secrets, so what it lacks the
// result lacks too).
func (w *Writer) rules(c, lower []byte) []byte {
	if has(lower, "key") && (has(lower, "begin") || has(lower, "end ")) {
		c = w.pemInline(c)
	}
	if bytes.Contains(c, []byte("LS0tLS1CRUdJTi")) {
		c = w.base64PEM(c)
	}
	if has(lower, "authorization") {
		c = w.sub(c, authHeader, w.authorization)
	}
	if has(lower, "cookie") {
		c = w.sub(c, cookieHdr, w.cookie)
	}
	if has(lower, "convertto-securestring") {
		c = w.sub(c, secureString, w.group(2, KindPassword))
		c = w.sub(c, secureStrParam, w.group(2, KindPassword))
		c = w.sub(c, secureStrPipe, w.group(1, KindPassword))
		c = w.secureVar(c)
	}
	if has(lower, "net") {
		if has(lower, "user") {
			c = w.sub(c, netUser, w.group(2, KindPassword))
		}
		if has(lower, "use") {
			c = w.sub(c, netUse, w.group(2, KindPassword))
			if has(lower, "/user:") {
				c = w.sub(c, netUseAfter, w.group(2, KindPassword))
			}
		}
		if has(lower, "credential") {
			c = w.sub(c, netCredential, w.group(2, KindPassword))
			if has(lower, "networkcredential") && !has(lower, "convertto-securestring") {
				c = w.secureVar(c)
			}
		}
	}
	if has(lower, "setx") || has(lower, "set ") {
		c = w.sub(c, setx, w.keyed(2, 3))
	}
	if has(lower, "machine") || has(lower, "default") {
		c = w.sub(c, netrc, w.group(2, KindPassword))
	}
	if has(lower, "setenvironmentvariable") {
		c = w.sub(c, setEnvVar, w.keyed(2, 3))
	}
	if winArgCandidate(c) {
		c = w.winArgs(c)
	}
	if hasFlag(lower, "-p") || hasFlag(lower, "-u") || has(lower, "--user") || has(lower, "--proxy-user") {
		c = w.unixArgs(c)
	}
	if hasAny(lower, "pass", "pw", "secret", "token", "key", "auth", "cred", "jwt", "cookie", "signature", "dockerc") {
		if has(lower, `"secret"`) && has(lower, `"kind"`) && has(lower, "data\"") {
			c = w.jsonSecretData(c)
		}
		if bytes.IndexByte(c, ';') >= 0 && bytes.IndexByte(c, '=') >= 0 {
			c = w.sub(c, connPair, w.connPair)
		}
		if has(lower, "value") {
			if has(lower, "@{") {
				c = w.sub(c, psHashPair, w.keyed(1, 2))
			}
			if has(lower, "name") {
				c = w.sub(c, envPairInline, w.keyed(2, 3))
			}
			if bytes.IndexByte(c, '<') >= 0 {
				c = w.sub(c, xmlAttr, w.keyed(2, 3))
				c = w.sub(c, xmlAttrApart, w.keyed(1, 2))
				c = w.sub(c, xmlAttrFirst, w.keyed(2, 1))
			}
		}
		if bytes.IndexByte(c, '<') >= 0 {
			c = w.sub(c, xmlElem, w.keyed(1, 2))
			if has(lower, "value") {
				c = w.sub(c, xmlValueAttr, w.keyed(1, 2))
			}
			if has(lower, "cdata") {
				c = w.sub(c, xmlCDATA, w.keyed(1, 2))
			}
		}
		c = w.keys(c)
		c = w.namedValue(c, lower)
		c = w.columns(c)
	}
	if (has(lower, "...") || has(lower, "\u2026")) && !hasAny(lower, "pass", "pw", "secret", "token", "key", "auth", "cred", "jwt", "cookie", "signature", "dockerc") {
		c = w.columns(c) // a name Format-Table cut before its secret word ended
	}
	if has(lower, "--password-stdin") {
		c = w.stdinSecret(c)
	}
	if hasAny(lower, "7z", "rar", "zip", "ssh-keygen", "openssl") {
		c = w.archivers(c)
	}
	if toolCandidate(lower) {
		c = w.toolArgs(c, lower)
	}
	if has(lower, "://") && bytes.IndexByte(c, '@') >= 0 {
		c = w.sub(c, urlCreds, w.group(2, KindPassword))
	}
	if has(lower, "bearer") || has(lower, "basic") {
		c = w.sub(c, bearer, w.bearer)
	}
	if has(lower, "eyj") {
		c = w.sub(c, jwt, w.group(0, KindToken))
	}
	if hasAny(lower, "akia", "asia", "aroa", "aida") {
		c = w.sub(c, awsKeyID, w.group(0, KindCloudCred))
	}
	if has(lower, "sig") || has(lower, "x-amz-security-token") {
		c = w.sub(c, sasSig, w.group(2, KindCloudCred))
	}
	if hasAny(lower, "gh", "_pat_", "glpat-", "xox", "aiza", "npm_", "_live_", "hf_") {
		c = w.sub(c, prefixed, w.group(0, KindToken))
	}
	return w.tokens(c, lower)
}

// A match handler returns the span of c to replace and its replacement.
type handler func(c []byte, m []int) (start, end int, repl []byte, ok bool)

// sub applies h to each match of re in c, left to right, skipping matches
// inside what an earlier replacement already covered.
func (w *Writer) sub(c []byte, re *regexp.Regexp, h handler) []byte {
	ms := re.FindAllSubmatchIndex(c, -1)
	if ms == nil {
		return c
	}
	var out []byte
	last, changed := 0, false
	for _, m := range ms {
		if m[0] < last {
			continue
		}
		s, e, r, ok := h(c, m)
		if !ok || s < last {
			continue
		}
		out = append(out, c[last:s]...)
		out = append(out, r...)
		last, changed = e, true
	}
	if !changed {
		return c
	}
	return append(out, c[last:]...)
}

// group replaces group g of each match, counted as kind.
func (w *Writer) group(g int, kind string) handler {
	return func(c []byte, m []int) (int, int, []byte, bool) {
		s, e := m[2*g], m[2*g+1]
		if s < 0 || !secretValue("", "", c[s:e]) {
			return 0, 0, nil, false
		}
		w.count(kind)
		return s, e, quoted(c[s:e]), true
	}
}

// keyed replaces the value group v when the key group k names a secret.
func (w *Writer) keyed(k, v int) handler {
	return func(c []byte, m []int) (int, int, []byte, bool) {
		key := string(c[m[2*k]:m[2*k+1]])
		kind := kindOf(key)
		s, e := m[2*v], m[2*v+1]
		if kind == "" || !secretValue(key, kind, c[s:e]) {
			return 0, 0, nil, false
		}
		w.count(kind)
		return s, e, quoted(c[s:e]), true
	}
}

// triggers are the words of keyTrigger, in lower case.
var triggers = [][]byte{[]byte("pass"), []byte("pw"), []byte("secret"), []byte("token"), []byte("key"),
	[]byte("auth"), []byte("cred"), []byte("jwt"), []byte("cookie"), []byte("signature"), []byte("dockerc")}

// keys finds the keys that hold a trigger word and redacts their values:
// key: value, key=value, "key": "value", $key = 'value',
// $env:KEY="value", --token VALUE, -Password VALUE. It works by hand
// rather than by one regular expression: a key is a run of
// [A-Za-z0-9_.-] around a trigger word, found from the word.
func (w *Writer) keys(c []byte) []byte {
	lower := w.lowerOf(c)
	var runs [][2]int
	for _, t := range triggers {
		for off := 0; ; {
			i := bytes.Index(lower[off:], t)
			if i < 0 {
				break
			}
			i += off
			a, b := i, i+len(t)
			for a > 0 && isKeyChar(c[a-1]) {
				a--
			}
			for b < len(c) && isKeyChar(c[b]) {
				b++
			}
			runs = append(runs, [2]int{a, b})
			off = b
		}
	}
	if len(runs) == 0 {
		return c
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i][0] < runs[j][0] })
	var out []byte
	last, changed := 0, false
	for i, r := range runs {
		if i > 0 && r[0] == runs[i-1][0] || r[0] < last {
			continue
		}
		s, e, repl, ok := w.keyValue(c, r[0], r[1])
		if !ok || s < last {
			continue
		}
		out = append(out, c[last:s]...)
		out = append(out, repl...)
		last, changed = e, true
	}
	if !changed {
		return c
	}
	return append(out, c[last:]...)
}

func isKeyChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '.' || b == '-'
}

// keyValue judges the key c[a:b]: followed by a separator (assignment) or,
// for a -flag, by white space, with a value naming a secret. A bare value
// of a key at the start of a line (password = my secret phrase), or after
// " = ", runs to the end of the line or the next key=value pair or flag; a
// bare value of a pair that opens a string ("DB_PASSWORD=a b") runs to the
// end of the string.
func (w *Writer) keyValue(c []byte, a, b int) (int, int, []byte, bool) {
	key := string(c[a:b])
	kind := kindOf(key)
	if kind == "" {
		return 0, 0, nil, false
	}
	// The quote that opens the key, if any.
	open := a
	if open > 0 && (c[open-1] == '"' || c[open-1] == '\'') {
		open--
		if open > 0 && c[open-1] == '\\' {
			open--
		}
	}
	// key: value, key=value, key := value
	j := b
	if j < len(c) && c[j] == '\\' {
		j++
	}
	quotedKey := false
	if j < len(c) && (c[j] == '"' || c[j] == '\'') {
		j++
		quotedKey = true
	}
	sepStart := j
	for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
		j++
	}
	if j < len(c) && (c[j] == ':' || c[j] == '=') {
		if j+1 < len(c) && (c[j] == ':' && c[j+1] == '=' || c[j] == '=' && c[j+1] == '>') {
			j++ // key := value; key => value (Puppet, Ruby, Perl, PHP)
		}
		j++
		for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
			j++
		}
		sep := c[sepStart:j]
		if a > 0 && (c[a-1] == '?' || c[a-1] == '&') && bytes.Equal(sep, []byte("=")) {
			// A URL's query: the value ends at the next parameter.
			e := j
			for e < len(c) && !isSpace(c[e]) && strings.IndexByte("&#\"'<>", c[e]) < 0 {
				e++
			}
			if e == j || !secretValue(key, kind, c[j:e]) {
				return 0, 0, nil, false
			}
			w.count(kind)
			return j, e, []byte(Placeholder), true
		}
		if j < len(c) && c[j] == '[' {
			// X-Api-Key = ["…"]: a TOML, JSON or YAML flow array of
			// strings or words, each one a secret (containerd hosts.toml
			// headers, apiKeys: [a, b]).
			return w.arrayValues(c, j, key, kind)
		}
		if j < len(c) && c[j] == '{' {
			// "adminPassword": { "value": "x" }: an ARM parameter.
			j = objectValue(c, j)
		}
		e := scanValue(c, j)
		if e < 0 || !secretValue(key, kind, c[j:e]) {
			return 0, 0, nil, false
		}
		s, v := j, c[j:e]
		if v[0] != '"' && v[0] != '\'' && !bytes.HasPrefix(v, []byte(`\"`)) && entityQuote(v) == "" {
			switch {
			case open < a && !quotedKey:
				// "KEY=value ..." inside a string: the value ends with it.
				q := c[a-1]
				k := e
				for k < len(c) && c[k] != q {
					if c[k] == '\\' && k+1 < len(c) {
						if open < a-1 && c[k+1] == q { // \"KEY=value\"
							break
						}
						k++
					}
					k++
				}
				e = max(e, min(k, len(c)))
			case key[0] != '-' && bytes.Contains(sep, []byte(" =")) && bytes.Contains(sep, []byte("= ")):
				e = extend(c, e)
			case key[0] != '-' && lineStart.Match(c[:open]):
				// KEY=value cmd -x /path: a shell's environment
				// prefix; its value ends at the space.
				if len(sep) > 1 || !shellCommand(c[e:]) {
					e = extend(c, e)
				}
			}
			if byteSize(string(c[s:e])) {
				return 0, 0, nil, false
			}
		}
		w.count(kind)
		return s, e, quoted(c[s:e]), true
	}
	// "--password", "VALUE" and "token", "VALUE": a flag or a key and its
	// value as neighbours in a list (a pod's args, a process's argv in
	// JSON, a logger's key/value pairs).
	if quotedKey && open < a && c[open] != '\\' {
		if s, e, ok := listPair(c, j, c[open], key[0] == '-'); ok && secretValue(key, kind, c[s:e]) {
			w.count(kind)
			return s, e, quoted(c[s:e]), true
		}
	}
	// --token VALUE, -Password VALUE
	if c[a] != '-' || a > 0 && !(isSpace(c[a-1]) || c[a-1] == '"' || c[a-1] == '\'' || c[a-1] == '(') {
		return 0, 0, nil, false
	}
	j = b
	for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
		j++
	}
	if j == b || j >= len(c) || c[j] == '-' {
		return 0, 0, nil, false
	}
	e := scanValue(c, j)
	if e < 0 || !secretValue(key, kind, c[j:e]) {
		return 0, 0, nil, false
	}
	w.count(kind)
	return j, e, quoted(c[j:e]), true
}

// listPair finds the value after a quoted key or flag in a list: from
// j, a comma, then a string in the same quote q. After a key that is not a
// flag, a value shaped like a field name (a list of names: "token",
// "expiry") is not taken for a secret.
func listPair(c []byte, j int, q byte, flag bool) (int, int, bool) {
	if j >= len(c) || c[j] != ',' {
		return 0, 0, false
	}
	j++
	for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
		j++
	}
	if j >= len(c) || c[j] != q {
		return 0, 0, false
	}
	e := scanValue(c, j)
	if e < 0 || e-j < 3 || c[e-1] != q {
		return 0, 0, false
	}
	v := c[j+1 : e-1]
	if len(v) > 0 && v[0] == '-' {
		return 0, 0, false // the next flag
	}
	if k := e; k < len(c) {
		for k < len(c) && (c[k] == ' ' || c[k] == '\t') {
			k++
		}
		if k < len(c) && c[k] == ':' {
			return 0, 0, false // the next member's key ({"Name": "X", "Value": ...})
		}
	}
	if !flag && fieldName(v) {
		return 0, 0, false
	}
	return j, e, true
}

// fieldName: lower-case letters, digits and _ . - only, starting with a
// letter: a name in a list of names rather than a secret.
func fieldName(v []byte) bool {
	if len(v) == 0 || v[0] < 'a' || v[0] > 'z' {
		return false
	}
	for _, b := range v {
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' || b == '.' || b == '-') {
			return false
		}
	}
	return true
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\v' || b == '\f'
}

// scanValue returns where the value starting at c[j] ends, or -1 when
// there is none: a double-quoted string (JSON escapes), a JSON-escaped one
// (\"...\"), a single-quoted one (” escapes), or a bare word. A string
// that is not closed runs to the end of the line.
func scanValue(c []byte, j int) int {
	if j >= len(c) {
		return -1
	}
	switch {
	case c[j] == '\\' && j+1 < len(c) && c[j+1] == '"':
		for k := j + 2; k < len(c); k++ {
			if c[k] == '\\' && k+1 < len(c) {
				if c[k+1] == '"' {
					return k + 2
				}
				k++
			}
		}
		return len(c)
	case c[j] == '"':
		for k := j + 1; k < len(c); k++ {
			switch c[k] {
			case '\\':
				k++
			case '"':
				return k + 1
			}
		}
		return len(c)
	case c[j] == '\'':
		for k := j + 1; k < len(c); k++ {
			if c[k] == '\'' {
				if k+1 < len(c) && c[k+1] == '\'' {
					k++
					continue
				}
				return k + 1
			}
		}
		return len(c)
	case c[j] == '&':
		// &apos;…&apos; and &quot;…&quot;: a string quoted inside XML (an
		// event's ScriptBlockText); it ends at the same entity.
		if q := entityQuote(c[j:]); q != "" {
			if k := bytes.Index(c[j+len(q):], []byte(q)); k >= 0 {
				return j + len(q) + k + len(q)
			}
			return len(c)
		}
	case isSpace(c[j]) || strings.IndexByte(`"',;=(){}[]<>|`, c[j]) >= 0:
		return -1
	}
	k := j + 1
	for k < len(c) && !isSpace(c[k]) && strings.IndexByte(`"',;}]`, c[k]) < 0 {
		k++
	}
	return k
}

// extend returns where a bare value starting before e ends: at the next
// key=value pair or flag, else at the end of the line, without trailing
// white space.
func extend(c []byte, e int) int {
	end := len(c)
	if loc := valueStop.FindIndex(c[e:]); loc != nil {
		end = e + loc[0]
	}
	for end > e && (c[end-1] == ' ' || c[end-1] == '\t') {
		end--
	}
	return end
}

// authorization handles Authorization headers: the scheme stays, the
// credentials go.
func (w *Writer) authorization(c []byte, m []int) (int, int, []byte, bool) {
	s, e := m[8], m[9]
	cred := c[s:e]
	if bytes.Contains(cred, []byte(Placeholder)) {
		return 0, 0, nil, false
	}
	if m[4] >= 0 {
		scheme := strings.ToLower(string(c[m[4]:m[5]]))
		if !authSchemes[scheme] && !secretish(cred) {
			return 0, 0, nil, false
		}
		// Digest/AWS4 credentials are comma-separated pairs: up to the
		// end of the quoted value or the line.
		if e < len(c) && c[e] == ',' {
			for e < len(c) && c[e] != '"' && c[e] != '\'' && c[e] != ']' {
				e++
			}
		}
	} else {
		if !secretish(cred) {
			return 0, 0, nil, false
		}
	}
	if m[4] >= 0 && strings.EqualFold(string(c[m[4]:m[5]]), "basic") {
		w.count(KindPassword) // base64 of user:password
	} else {
		w.count(KindToken)
	}
	return s, e, []byte(Placeholder), true
}

// cookie handles Cookie (every value) and Set-Cookie (the first value)
// headers; cookie names and attributes stay.
func (w *Writer) cookie(c []byte, m []int) (int, int, []byte, bool) {
	s, e := m[4], m[5]
	for e > s && (c[e-1] == ' ' || c[e-1] == '\t') {
		e--
	}
	v := c[s:e]
	if bytes.Contains(v, []byte(Placeholder)) {
		return 0, 0, nil, false
	}
	set := bytes.HasPrefix(bytes.ToLower(c[m[2]:m[3]]), []byte("set-"))
	var out []byte
	changed := false
	for i, pair := range bytes.Split(v, []byte(";")) {
		if i > 0 {
			out = append(out, ';')
		}
		if set && i > 0 {
			out = append(out, pair...)
			continue
		}
		eq := bytes.IndexByte(pair, '=')
		if eq < 0 {
			if secretish(bytes.TrimSpace(pair)) {
				out = append(out, leading(pair)...)
				out = append(out, Placeholder...)
				changed = true
			} else {
				out = append(out, pair...)
			}
			continue
		}
		val := bytes.TrimSpace(pair[eq+1:])
		out = append(out, pair[:eq+1]...)
		if len(val) == 0 {
			out = append(out, pair[eq+1:]...)
			continue
		}
		out = append(out, Placeholder...)
		changed = true
	}
	if !changed {
		return 0, 0, nil, false
	}
	w.count(KindToken)
	return s, e, out, true
}

// bearer handles a Bearer or Basic credential outside an Authorization
// header: it must look random, not like a word ("basic authentication").
func (w *Writer) bearer(c []byte, m []int) (int, int, []byte, bool) {
	s, e := m[6], m[7]
	if !secretish(c[s:e]) || bytes.Contains(c[s:e], []byte(Placeholder)) {
		return 0, 0, nil, false
	}
	if strings.EqualFold(string(c[m[4]:m[5]]), "basic") {
		w.count(KindPassword)
	} else {
		w.count(KindToken)
	}
	return s, e, []byte(Placeholder), true
}

// secretish says whether a credential looks generated rather than a word:
// a digit, a base64 symbol, or a capital letter after the first.
func secretish(v []byte) bool {
	if len(v) < 8 {
		return false
	}
	for i, b := range v {
		switch {
		case b >= '0' && b <= '9', b == '+', b == '/', b == '=', b == '_', b == '.', b == '~':
			return true
		case b >= 'A' && b <= 'Z' && i > 0:
			return true
		}
	}
	return false
}

// winArgs handles /p:PASS style arguments and their space-separated forms.
func (w *Writer) winArgs(c []byte) []byte {
	c = w.sub(c, winSlash, func(c []byte, m []int) (int, int, []byte, bool) {
		name := strings.ToLower(string(c[m[4]:m[5]]))
		s, e := m[6], m[7]
		v := c[s:e]
		if !secretValue("", "", v) {
			return 0, 0, nil, false
		}
		kind := KindPassword
		switch name {
		case "u", "user", "username", "ud", "uo", "userd", "usero":
			kind = KindUsername
		case "p":
			// msbuild /p:Name=Value is a property: the keyed rules judge it.
			if bytes.IndexByte(v, '=') >= 0 {
				return 0, 0, nil, false
			}
		}
		w.count(kind)
		return s, e, quoted(v), true
	})
	ms := winSlashSp.FindAllSubmatchIndex(c, -1)
	if ms == nil {
		return c
	}
	// /p PASS and /u USER only together (schtasks /s /u /p): alone, /p
	// is a flag of many commands (xcopy /p, set /p).
	hasU, hasP := false, false
	for _, m := range ms {
		switch strings.ToLower(string(c[m[4]:m[5]])) {
		case "u":
			hasU = true
		case "p":
			hasP = true
		}
	}
	return w.sub(c, winSlashSp, func(c []byte, m []int) (int, int, []byte, bool) {
		name := strings.ToLower(string(c[m[4]:m[5]]))
		s, e := m[6], m[7]
		if !secretValue("", "", c[s:e]) {
			return 0, 0, nil, false
		}
		kind := KindPassword
		switch name {
		case "u":
			if !hasP {
				return 0, 0, nil, false
			}
			kind = KindUsername
		case "p":
			if !hasU {
				return 0, 0, nil, false
			}
		}
		w.count(kind)
		return s, e, quoted(c[s:e]), true
	})
}

// unixArgs handles -p PASS next to -u USER (mysql -uroot -pPASS, docker
// login -u x -p y, psexec -u x -p y) and curl -u user:pass.
func (w *Writer) unixArgs(c []byte) []byte {
	c = w.sub(c, curlUser, func(c []byte, m []int) (int, int, []byte, bool) {
		s, e := m[4], m[5]
		v := c[s:e]
		if !secretValue("", "", v) || portLike.Match(v) || bytes.HasPrefix(v, []byte("//")) {
			return 0, 0, nil, false // -u 1000:1000 is a uid:gid; -u redis://u:p@h is a URL
		}
		w.count(KindPassword)
		return s, e, quoted(v), true
	})
	if bytes.Contains(c, []byte("-P")) && sqlCmd.Match(c) {
		c = w.sub(c, sqlPass, w.group(3, KindPassword))
	}
	if !bytes.Contains(c, []byte("-p")) {
		return c
	}
	mysql := mysqlCmd.Match(c)
	if !mysql && !unixUser.Match(c) && !passCmd.Match(c) {
		return c
	}
	return w.sub(c, unixPass, func(c []byte, m []int) (int, int, []byte, bool) {
		s, e := m[6], m[7]
		v := c[s:e]
		spaced := m[5] > m[4]
		// mysql -pPASS, but mysql -p db prompts (db is a database); other
		// tools take -p PASS (psexec, docker login), and -pxvf is flags.
		if spaced == mysql {
			return 0, 0, nil, false
		}
		if !secretValue("", "", v) || portLike.Match(v) {
			return 0, 0, nil, false
		}
		w.count(KindPassword)
		return s, e, quoted(v), true
	})
}

// connPair handles the pairs of a connection string (Password=my pass;),
// where a value runs to the semicolon.
func (w *Writer) connPair(c []byte, m []int) (int, int, []byte, bool) {
	s, e := m[8], m[9]
	// Only in a ;-separated list.
	if !(m[3] > m[2] && c[m[2]] == ';' || e < len(c) && c[e] == ';') {
		return 0, 0, nil, false
	}
	for e > s && (c[e-1] == ' ' || c[e-1] == '\t') {
		e--
	}
	key := strings.NewReplacer(" ", "", ":", "_").Replace(string(c[m[4]:m[5]]))
	kind := kindOf(key)
	if kind == "" || s == e || !secretValue(key, kind, c[s:e]) {
		return 0, 0, nil, false
	}
	if strings.Contains(strings.ToLower(key), "accountkey") || strings.Contains(strings.ToLower(key), "sharedaccess") {
		kind = KindCloudCred
	}
	w.count(kind)
	return s, e, []byte(Placeholder), true
}

// pemInline handles key blocks that start on this line: a whole block in a
// JSON string (GCP service-account private_key), a block whose BEGIN ends
// the line (the body follows: stPEM), one cut off inside a string, and the
// escaped body before a lone END (a JSON string whose start was cut).
func (w *Writer) pemInline(c []byte) []byte {
	var out []byte
	pos := 0
	for pos < len(c) {
		loc := beginMarker.FindIndex(c[pos:])
		if loc == nil {
			break
		}
		after := pos + loc[1]
		out = append(out, c[pos:after]...)
		if e := endMarkerRe.FindIndex(c[after:]); e != nil {
			body := c[after : after+e[0]]
			out = append(out, w.inlineBody(body)...)
			out = append(out, c[after+e[0]:after+e[1]]...)
			pos = after + e[1]
			continue
		}
		rest := c[after:]
		if len(bytes.TrimSpace(rest)) == 0 {
			out = append(out, rest...)
			w.st, w.emitted = stPEM, false
			pos = len(c)
			break
		}
		// Cut inside a string: the key runs to its closing quote.
		j := bytes.IndexAny(rest, "\"'")
		if j < 0 {
			j = len(rest)
		}
		out = append(out, w.inlineBody(rest[:j])...)
		pos = after + j
	}
	if out == nil {
		return w.loneEnd(c)
	}
	out = append(out, c[pos:]...)
	return out
}

// inlineBody replaces a key body found on one line, keeping escaped
// newlines around it.
func (w *Writer) inlineBody(body []byte) []byte {
	t := bytes.TrimSpace(body)
	t = bytes.TrimPrefix(bytes.TrimSuffix(t, []byte(`\n`)), []byte(`\n`))
	if len(t) == 0 || bytes.Equal(t, []byte(Placeholder)) {
		return body
	}
	w.count(KindPrivateKey)
	var r []byte
	if bytes.HasPrefix(body, []byte(`\n`)) || bytes.HasPrefix(body, []byte(`\r\n`)) {
		r = append(r, `\n`...)
	}
	r = append(r, Placeholder...)
	if bytes.HasSuffix(body, []byte(`\n`)) {
		r = append(r, `\n`...)
	}
	return r
}

// loneEnd removes an escaped key body ("...AbC\n-----END PRIVATE KEY-----")
// before an END marker whose BEGIN is not on the line.
func (w *Writer) loneEnd(c []byte) []byte {
	loc := endMarkerRe.FindIndex(c)
	if loc == nil || loc[0] < 2 || string(c[loc[0]-2:loc[0]]) != `\n` {
		return c
	}
	i := loc[0] - 2
	for i > 0 && (isB64(c[i-1]) || c[i-1] == '\\' || c[i-1] == ' ') {
		i--
	}
	body := c[i : loc[0]-2]
	t := bytes.ReplaceAll(body, []byte(`\n`), nil)
	if len(t) < 16 || bytes.Contains(body, []byte(Placeholder)) {
		return c
	}
	w.count(KindPrivateKey)
	out := append([]byte(nil), c[:i]...)
	out = append(out, Placeholder...)
	return append(out, c[loc[0]-2:]...)
}

// endMarker returns where an END line of a private key starts in c, or -1.
func endMarker(c []byte) int {
	if !bytes.Contains(c, []byte("END ")) {
		return -1
	}
	if loc := endMarkerRe.FindIndex(c); loc != nil {
		return loc[0]
	}
	return -1
}

// base64PEM removes base64-encoded PEM private keys (Kubernetes secret
// data such as tls.key, whatever the key is called); an encoded
// certificate (ca.crt, certificate-authority-data) stays.
func (w *Writer) base64PEM(c []byte) []byte {
	return w.sub(c, b64PEM, func(c []byte, m []int) (int, int, []byte, bool) {
		tok := c[m[0]:m[1]]
		head := tok
		if len(head) > 96 {
			head = head[:96]
		}
		head = head[:len(head)/4*4]
		dec := make([]byte, base64.StdEncoding.DecodedLen(len(head)))
		n, _ := base64.StdEncoding.Decode(dec, head)
		d := string(dec[:n])
		if !strings.Contains(d, "PRIVATE KEY") && !strings.Contains(d, "SECRET KEY") {
			return 0, 0, nil, false
		}
		w.count(KindPrivateKey)
		// A key wrapped over lines (base64 -w 76): the next lines go too.
		if len(bytes.TrimSpace(c[m[1]:])) == 0 && tok[len(tok)-1] != '=' && len(tok) >= 60 {
			w.st = stBase64
		}
		return m[0], m[1], []byte(Placeholder), true
	})
}

// entityQuote returns the XML entity for a quote that b starts with.
func entityQuote(b []byte) string {
	for _, q := range []string{"&apos;", "&quot;", "&#39;", "&#34;"} {
		if bytes.HasPrefix(b, []byte(q)) {
			return q
		}
	}
	return ""
}

// quoted keeps the value's quotes around the placeholder.
func quoted(v []byte) []byte {
	if q := entityQuote(v); q != "" && len(v) >= 2*len(q) && bytes.HasSuffix(v, []byte(q)) {
		return []byte(q + Placeholder + q)
	}
	switch {
	case len(v) >= 4 && bytes.HasPrefix(v, []byte(`\"`)) && bytes.HasSuffix(v, []byte(`\"`)):
		return []byte(`\"` + Placeholder + `\"`)
	case len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0]:
		return []byte(string(v[0]) + Placeholder + string(v[0]))
	}
	return []byte(Placeholder)
}

// hasFlag says whether lower holds the flag f at the start of a word.
func hasFlag(lower []byte, f string) bool {
	for off := 0; ; {
		i := bytes.Index(lower[off:], []byte(f))
		if i < 0 {
			return false
		}
		i += off
		if i == 0 || isSpace(lower[i-1]) {
			return true
		}
		off = i + 1
	}
}

// winArgCandidate: a /p, /u, /r argument starts a word somewhere in c.
func winArgCandidate(c []byte) bool {
	for off := 0; ; {
		i := bytes.IndexByte(c[off:], '/')
		if i < 0 {
			return false
		}
		i += off
		if (i == 0 || isSpace(c[i-1]) || c[i-1] == '"' || c[i-1] == '\'') && i+1 < len(c) {
			switch c[i+1] | 0x20 {
			case 'p', 'u', 'r':
				return true
			}
		}
		off = i + 1
	}
}

// blockCandidate: the value after the line's first colon starts with | or
// > (or a YAML tag), as in "key: |".
func blockCandidate(c []byte) bool {
	i := bytes.IndexByte(c, ':')
	if i < 0 {
		return false
	}
	t := bytes.TrimLeft(c[i+1:], " \t")
	return len(t) > 0 && (t[0] == '|' || t[0] == '>' || t[0] == '!')
}

// shellCommand says whether what follows KEY=value looks like the command
// the variable is set for: a flag, a path, or another VAR=value.
func shellCommand(rest []byte) bool {
	for _, f := range bytes.Fields(rest) {
		if f[0] == '-' || f[0] == '/' || f[0] == '.' || f[0] == '\\' || f[0] == '|' || f[0] == '&' || f[0] == '>' ||
			bytes.IndexByte(f, '=') > 0 || len(f) > 2 && f[1] == ':' && f[2] == '\\' {
			return true
		}
	}
	return false
}

// objectValue returns where the value of an object's "value" member
// starts when the object at c[j] opens with it, else j.
func objectValue(c []byte, j int) int {
	k := j + 1
	for k < len(c) && (c[k] == ' ' || c[k] == '\t') {
		k++
	}
	if k < len(c) && (c[k] == '"' || c[k] == '\'') {
		k++
	}
	if !bytes.HasPrefix(c[k:], []byte("value")) {
		return j
	}
	k += len("value")
	if k < len(c) && (c[k] == '"' || c[k] == '\'') {
		k++
	}
	for k < len(c) && (c[k] == ' ' || c[k] == '\t') {
		k++
	}
	if k >= len(c) || c[k] != ':' {
		return j
	}
	k++
	for k < len(c) && (c[k] == ' ' || c[k] == '\t') {
		k++
	}
	return k
}

// xmlKeyPrefix: the prefix ASP.NET appSettings keys often carry
// (ida:ClientSecret, ida:AppKey in OWIN/ADAL samples).
const xmlKeyPrefix = `(?:[A-Za-z0-9_.\-]+:)?`

// arrayValues redacts each string or word of the array opening at c[j],
// on one line; an array of objects or arrays is left to the rules that
// read it.
func (w *Writer) arrayValues(c []byte, j int, key, kind string) (int, int, []byte, bool) {
	var out []byte
	out = append(out, '[')
	k, n := j+1, 0
	for {
		s := k
		for k < len(c) && (c[k] == ' ' || c[k] == '\t') {
			k++
		}
		out = append(out, c[s:k]...)
		if k >= len(c) || c[k] == '[' || c[k] == '{' {
			return 0, 0, nil, false
		}
		e := scanValue(c, k)
		if e <= k || (c[k] == '"' || c[k] == '\'') && (c[e-1] != c[k] || e-k < 2) {
			return 0, 0, nil, false
		}
		if secretValue(key, kind, c[k:e]) {
			out = append(out, quoted(c[k:e])...)
			n++
		} else {
			out = append(out, c[k:e]...)
		}
		k = e
		s = k
		for k < len(c) && (c[k] == ' ' || c[k] == '\t') {
			k++
		}
		out = append(out, c[s:k]...)
		if k < len(c) && c[k] == ']' {
			if n == 0 {
				return 0, 0, nil, false
			}
			w.counts[kind] += n
			return j, k + 1, append(out, ']'), true
		}
		if k >= len(c) || c[k] != ',' {
			return 0, 0, nil, false
		}
		out = append(out, ',')
		k++
	}
}

// secureVar redacts the plain text a variable is given on the line that
// hands it to ConvertTo-SecureString -AsPlainText ($p = '…'; … $p, or
// $p | ConvertTo-SecureString) or to a NetworkCredential, whatever the
// variable's name: script block logging and transcripts carry a
// script's statements so, on one line.
func (w *Writer) secureVar(c []byte) []byte {
	ms := secureStrVar.FindAllSubmatchIndex(c, -1)
	if len(w.held) > 0 {
		for _, m := range ms {
			w.redactHeld(varName(c, m)) // assigned on a line before
		}
	}
	for n := len(ms); n > 0; n-- {
		// From the last use back: a replacement moves only what follows it.
		m := ms[n-1]
		c = w.assignedLiteral(c, varName(c, m), m[0])
	}
	return c
}

// varName: the variable a match of secureStrVar names.
func varName(c []byte, m []int) []byte {
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 {
			return c[m[2*g]:m[2*g+1]]
		}
	}
	return nil
}

// assignedLiteral redacts the literals assigned to $name in c[:end].
func (w *Writer) assignedLiteral(c, name []byte, end int) []byte {
	v := append([]byte{'$'}, name...)
	var out []byte
	last := 0
	for off := 0; off < end; {
		i := bytes.Index(c[off:end], v)
		if i < 0 {
			break
		}
		j := off + i + len(v)
		off = j
		if j < len(c) && (isKeyChar(c[j]) || c[j] == ':') {
			continue // a longer name ($pw, $p.Length, $p:x)
		}
		for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
			j++
		}
		if j+1 >= len(c) || c[j] != '=' || c[j+1] == '=' {
			continue
		}
		j++
		for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
			j++
		}
		if j >= len(c) || c[j] != '"' && c[j] != '\'' && entityQuote(c[j:]) == "" {
			continue // only a literal: $p = Read-Host … holds no secret here
		}
		e := scanValue(c, j)
		if e < 0 || e > end || !secretValue("", KindPassword, c[j:e]) {
			continue
		}
		out = append(out, c[last:j]...)
		out = append(out, quoted(c[j:e])...)
		last, off = e, e
		w.count(KindPassword)
	}
	if out == nil {
		return c
	}
	return append(out, c[last:]...)
}
