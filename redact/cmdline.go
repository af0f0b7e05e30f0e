package redact

import (
	"bytes"
	"regexp"
	"strings"
)

// Command lines whose secret no key names: the archivers' password
// switches, and the commands that set a named value (Set-ItemProperty
// -Name DefaultPassword -Value x, reg add /v DefaultPassword /d x), where
// the name of the setting says the value is a secret.

var psPositional, psNameValue, archiver7z, gluedPass, gluedDQ, gluedSQ, zipCmd, zipPass, psName, psEnvPath, psValue, regAddV, regAddD, regAddCmd, regAddDDash, keygenCmd, keygenPass, opensslCmd, opensslK, stdinPass, redisAuth *regexp.Regexp

// A switch that takes a secret only in the commands that name it, as
// their documentation says: redis-cli -a, winrs -p:, ldapsearch -w,
// smbclient -U user%PASS. Elsewhere the same letter means something else
// (ls -a, ssh -p 22, docker run -d, sort -w).
type toolSwitch struct {
	trigger string         // in the line, in lower case, before any regular expression runs
	cmd     *regexp.Regexp // the command's name as a word
	flag    *regexp.Regexp // the switch; its last group is the value
	kind    string
}

var toolSwitches []toolSwitch

// commandRe matches a command's name as a word of a command line (a
// path before it, .exe after it, a quote around it).
func commandRe(names string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[\s"'\\/&;|(>])(?:` + names + `)(?:\.exe)?["']?(?:\s|$)`)
}

// argValueNoFlag: a quoted string or a bare word not starting a flag.
const argValueNoFlag = `"[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s]*`

func compileCmdline() {
	// 7-Zip and RAR take the password glued to -p (rar: -hp too).
	// The name may end a list's item: ["7z.exe"], "args": [...].
	archiver7z = regexp.MustCompile(`(?i)(?:^|[\s"'\\/&\[,])(?:7z|7za|7zr|7zz|7zg|rar|unrar|winrar)(?:\.exe)?["']?(?:\s|[\],)])`)
	gluedPass = regexp.MustCompile(`(?i)((?:^|\s)-h?p)("[^"\n]+"|'[^'\n]+'|[^\s"'\-][^\s]*)`)
	// The switch quoted whole, as a script quoting its arguments writes it: "-pPASS".
	// In a list too: -ArgumentList 'a','-pX' and ["a", "-pX"].
	gluedDQ = regexp.MustCompile(`(?i)((?:^|[\s,(\[])"-h?p)([^"\n]+)"`)
	gluedSQ = regexp.MustCompile(`(?i)((?:^|[\s,(\[])'-h?p)([^'\n]+)'`)
	// zip and unzip take it after -P.
	zipCmd = regexp.MustCompile(`(?i)(?:^|[\s"'\\/&])(?:zip|unzip)(?:\.exe)?["']?\s`)
	zipPass = regexp.MustCompile(`((?:^|\s)-P[ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s]*)`)
	// -Name X, and -Name:X (a parameter joined to its argument).
	psName = regexp.MustCompile(`(?i)(?:^|\s)-Name(?:[ \t]+|:)("[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s]*)`)
	psEnvPath = regexp.MustCompile(`(?i)(?:^|\s)(?:-Path[ \t]+)?["']?env:\\?([A-Za-z_][A-Za-z0-9_]*)`)
	// A bare value ends at ; or | (the next command or pipeline stage).
	psValue = regexp.MustCompile(`(?i)((?:^|\s)-Value(?:[ \t]+|:))("(?:[^"\\\n]|\\.|"")*"|'(?:[^'\n]|'')*'|[^\s"'\-$(;|][^\s;|]*)`)
	// -Name X VALUE: the value by position after a named -Name.
	psNameValue = regexp.MustCompile(`(?i)(?:^|\s)-Name(?:[ \t]+|:)("[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s;|]*)[ \t]+("(?:[^"\\\n]|\\.|"")*"|'(?:[^'\n]|'')*'|[^\s"'\-$(;|][^\s;|]*)`)
	// ssh-keygen -N new -P old; openssl enc -k PASS.
	keygenCmd = regexp.MustCompile(`(?i)(?:^|[\s"'\\/&])ssh-keygen(?:\.exe)?["']?\s`)
	keygenPass = regexp.MustCompile(`((?:^|\s)-[NP][ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s]*)`)
	opensslCmd = regexp.MustCompile(`(?i)(?:^|[\s"'\\/&])openssl(?:\.exe)?["']?\s`)
	opensslK = regexp.MustCompile(`((?:^|\s)-k[ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s]*)`)
	// echo PASS | docker login --password-stdin
	stdinPass = regexp.MustCompile(`(?i)((?:^|[\s;&(])(?:echo|printf|Write-Output|Write-Host)[ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"'|$][^\s|]*)([ \t]*\|[^|\n]*--password-stdin)`)
	// Set-ItemProperty PATH NAME VALUE: the parameters by position.
	// A bare path may hold spaces escaped by a backtick (Windows` NT).
	psPositional = regexp.MustCompile(`(?i)(?:^|[\s;|&(])(?:Set-ItemProperty|New-ItemProperty|sp)[ \t]+(?:-(?:Literal)?Path[ \t]+)?(?:"[^"\n]*"|'[^'\n]*'|[^\s"'\-` + "`" + `](?:` + "`" + `.|[^\s` + "`" + `])*)[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s"'\-][^\s;|]*)[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s"'\-$(;|][^\s;|]*)`)
	regAddV = regexp.MustCompile(`(?i)(?:^|\s)([/-])v[ \t]+("[^"\n]*"|[^\s"/\-][^\s]*)`)
	regAddD = regexp.MustCompile(`(?i)((?:^|\s)/d[ \t]+)("[^"\n]*"|[^\s"/][^\s]*)`)
	// reg.exe takes its switches with a dash too: reg add KEY -v NAME -d DATA.
	regAddCmd = regexp.MustCompile(`(?i)(?:^|[\s"'\\/&;|(>])reg(?:\.exe)?["']?[ \t]+(?:add|import)\b`)
	regAddDDash = regexp.MustCompile(`(?i)((?:^|\s)-d[ \t]+)(` + argValueNoFlag + `)`)

	// redis: AUTH [user] PASS, as an argument of redis-cli or at its prompt
	// (127.0.0.1:6379> AUTH PASS).
	redisAuth = regexp.MustCompile(`(?i)((?:(?:^|[\s"'\\/&;|(])(?:redis-cli|valkey-cli|keydb-cli)(?:\.exe)?["']?\s.*?|^[ \t]*\S*:[0-9]+(?:\[[0-9]+\])?>[ \t]*)\bAUTH[ \t]+(?:(?:"[^"\n]*"|[^\s"<]\S*)[ \t]+)?)("[^"\n]*"|[^\s"<]\S*)[ \t]*$`)

	toolSwitches = []toolSwitch{
		// redis-cli -a PASS (--pass PASS is a key like any --password).
		{"-a", commandRe(`redis-cli|redis-benchmark|redis-check-aof|valkey-cli|valkey-benchmark|keydb-cli`),
			regexp.MustCompile(`((?:^|\s)-a[ \t]+)(` + argValueNoFlag + `)`), KindPassword},
		// winrs/winrm -p:PASS -password:PASS -u:USER -username:USER.
		{":", commandRe(`winrs|winrm|winrm\.cmd`),
			regexp.MustCompile(`(?i)((?:^|\s)-(?:p|pw|pwd|pass|password)[:=])("[^"\n]*"|'[^'\n]*'|[^\s"']+)`), KindPassword},
		{":", commandRe(`winrs|winrm|winrm\.cmd`),
			regexp.MustCompile(`(?i)((?:^|\s)-(?:u|user|username)[:=])("[^"\n]*"|'[^'\n]*'|[^\s"']+)`), KindUsername},
		// OpenLDAP: -w PASS (or -wPASS); ldappasswd -a OLD -s NEW.
		{"ldap", commandRe(`ldapsearch|ldapmodify|ldapadd|ldapdelete|ldapmodrdn|ldappasswd|ldapwhoami|ldapcompare|ldapexop|ldapurl`),
			regexp.MustCompile(`((?:^|\s)-w[ \t]*)(` + argValueNoFlag + `)`), KindPassword},
		{"ldappasswd", commandRe(`ldappasswd`),
			regexp.MustCompile(`((?:^|\s)-[as][ \t]*)(` + argValueNoFlag + `)`), KindPassword},
		// Samba: -U [DOMAIN\]USER%PASS, --user=USER%PASS.
		{"%", commandRe(`smbclient|rpcclient|smbcacls|smbcquotas|smbget|smbtree|smbspool|winexe|net[ \t]+(?:ads|rpc|rap)|wbinfo`),
			regexp.MustCompile(`((?:^|\s)(?:-U[ \t]*|--user[= ][ \t]*|--user(?:name)?=)["']?[^\s%"']*%)([^\s"']+)`), KindPassword},
	}
}

// archivers redacts 7z/rar -pPASS, zip/unzip -P PASS, ssh-keygen -N/-P
// and openssl -k: switches whose letter means a password only for that
// command.
func (w *Writer) archivers(c []byte) []byte {
	if loc := archiver7z.FindIndex(c); loc != nil {
		head, tail := c[:loc[1]], c[loc[1]:]
		for _, re := range []*regexp.Regexp{gluedPass, gluedDQ, gluedSQ} {
			tail = w.sub(tail, re, func(c []byte, m []int) (int, int, []byte, bool) {
				v := c[m[4]:m[5]]
				if !secretValue("", "", v) {
					return 0, 0, nil, false
				}
				w.count(KindPassword)
				return m[4], m[5], quoted(v), true
			})
		}
		c = append(append([]byte(nil), head...), tail...)
	}
	for _, cmd := range []struct{ name, flag *regexp.Regexp }{{keygenCmd, keygenPass}, {opensslCmd, opensslK}} {
		if loc := cmd.name.FindIndex(c); loc != nil {
			head, tail := c[:loc[1]], w.sub(c[loc[1]:], cmd.flag, w.group(2, KindPassword))
			c = append(append([]byte(nil), head...), tail...)
		}
	}
	if loc := zipCmd.FindIndex(c); loc != nil && bytes.Contains(c, []byte("-P")) {
		head, tail := c[:loc[1]], w.sub(c[loc[1]:], zipPass, w.group(2, KindPassword))
		c = append(append([]byte(nil), head...), tail...)
	}
	return c
}

// stdinSecret redacts what is echoed into --password-stdin.
func (w *Writer) stdinSecret(c []byte) []byte {
	return w.sub(c, stdinPass, w.group(2, KindPassword))
}

// namedValue redacts -Value of a PowerShell command whose -Name names a
// secret, and /d of reg add whose /v does.
func (w *Writer) namedValue(c, lower []byte) []byte {
	if (has(lower, "-name") || has(lower, "env:")) && has(lower, "-value") {
		name := ""
		if m := psName.FindSubmatch(c); m != nil {
			name = strings.Trim(string(m[1]), `"'`)
		} else if m := psEnvPath.FindSubmatch(c); m != nil {
			name = string(m[1]) // Set-Item -Path env:REGISTRY_TOKEN -Value x
		}
		if kind := kindOf(name); kind != "" {
			c = w.sub(c, psValue, w.groupKind(2, kind))
		}
	}
	if has(lower, "-name") && (has(lower, "itemproperty") || has(lower, "sp ")) {
		c = w.sub(c, psNameValue, func(c []byte, m []int) (int, int, []byte, bool) {
			kind := kindOf(strings.Trim(string(c[m[2]:m[3]]), `"'`))
			if kind == "" || !secretValue("value", kind, c[m[4]:m[5]]) {
				return 0, 0, nil, false
			}
			w.count(kind)
			return m[4], m[5], quoted(c[m[4]:m[5]]), true
		})
	}
	if has(lower, "itemproperty") || has(lower, "sp ") {
		c = w.sub(c, psPositional, func(c []byte, m []int) (int, int, []byte, bool) {
			kind := kindOf(strings.Trim(string(c[m[2]:m[3]]), `"'`))
			if kind == "" || !secretValue("value", kind, c[m[4]:m[5]]) {
				return 0, 0, nil, false
			}
			w.count(kind)
			return m[4], m[5], quoted(c[m[4]:m[5]]), true
		})
	}
	if (has(lower, "/v") || has(lower, "-v")) && (has(lower, "/d") || has(lower, "-d")) {
		if m := regAddV.FindSubmatch(c); m != nil {
			if kind := kindOf(strings.Trim(string(m[2]), `"`)); kind != "" {
				if m[1][0] == '/' {
					c = w.sub(c, regAddD, w.groupKind(2, kind))
				} else if regAddCmd.Match(c) {
					c = w.sub(c, regAddDDash, w.groupKind(2, kind))
				}
			}
		}
	}
	return c
}

// toolCandidate: the line may hold a switch of toolSwitches or redis'
// AUTH. Every line is asked, so the rarest test of each comes first.
func toolCandidate(lower []byte) bool {
	return has(lower, "winr") || has(lower, "ldap") || has(lower, "auth") ||
		bytes.IndexByte(lower, '%') >= 0 && hasAny(lower, "smb", "rpcclient", "winexe", "wbinfo", "net ") ||
		has(lower, "-a") && hasAny(lower, "redis", "valkey", "keydb")
}

// toolArgs redacts the switches that take a secret in the command that
// names them (toolSwitches), and redis' AUTH.
func (w *Writer) toolArgs(c, lower []byte) []byte {
	for _, t := range toolSwitches {
		if !has(lower, t.trigger) {
			continue
		}
		if loc := t.cmd.FindIndex(c); loc != nil {
			head, tail := c[:loc[1]], c[loc[1]:]
			// The command's name ends with the space before its first argument.
			if loc[1] > 0 && isSpace(c[loc[1]-1]) {
				head, tail = c[:loc[1]-1], c[loc[1]-1:]
			}
			tail = w.sub(tail, t.flag, w.group(2, t.kind))
			c = append(append([]byte(nil), head...), tail...)
		}
	}
	if has(lower, "auth") {
		c = w.sub(c, redisAuth, w.group(2, KindPassword))
	}
	return c
}

// groupKind replaces group g of each match, when it is a value, as kind.
func (w *Writer) groupKind(g int, kind string) handler {
	return func(c []byte, m []int) (int, int, []byte, bool) {
		s, e := m[2*g], m[2*g+1]
		if s < 0 || !secretValue("value", kind, c[s:e]) {
			return 0, 0, nil, false
		}
		w.count(kind)
		return s, e, quoted(c[s:e]), true
	}
}
