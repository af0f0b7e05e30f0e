package redact

import (
	"bytes"
	"regexp"
)

// A flag and its value on two lines: kubectl -o json and -o yaml print a
// container's args one item a line ("--db-password", then the value;
// "- --api-token", then "- value"), and Format-List wraps a long
// CommandLine so that a flag ends one line and its value starts the next,
// indented. The two are read as one: the line is redacted joined to the
// flag before it, as the single-line rules read them.

var jsonListItem, yamlListItem, archiverWord *regexp.Regexp

func compileOverLines() {
	// "--db-password",  or  "password",  alone on its line.
	jsonListItem = regexp.MustCompile(`^[ \t]*("-{0,2}` + keyName + `"|"-{1,2}(?:user|username|proxy-user)"|"-[uU]"),[ \t]*$`)
	// - --api-token  or  - "--api-token"
	yamlListItem = regexp.MustCompile(`^[ \t]*-[ \t]+["']?(-{1,2}` + keyName + `|-{1,2}(?:user|username|proxy-user)|-[uU])["']?[ \t]*$`)
	// An archiver's name as an item of a list (a container's command).
	archiverWord = regexp.MustCompile(`(?i)(?:^|[\s"'\\/&\[,])(?:7z|7za|7zr|7zz|7zg|rar|unrar|winrar)(?:\.exe)?["']?(?:\s|[\],)]|$)`)
}

// pending is what the previous line leaves for the next one to be read with.
type pending struct {
	prefix []byte // prepended to the next line's text
	strip  bool   // the next line is a YAML list item: its "- " goes
	indent bool   // the next line must be indented (a wrapped line)
}

// archiverSpan is how many lines after an archiver's name its list of
// arguments may run (a container's command, then its args).
const archiverSpan = 12

// wrappedFlags are flags whose value is a user:password pair.
var wrappedFlags = map[string]bool{"--user": true, "-u": true, "-U": true, "--proxy-user": true, "--username": true}

// setPending records what of c the next line is to be read with.
func (w *Writer) setPending(c []byte) {
	w.pend = pending{}
	t := bytes.TrimRight(c, " \t")
	// Each regular expression only where the line's ends allow it.
	if bytes.HasSuffix(t, []byte(`",`)) {
		if m := jsonListItem.FindSubmatch(c); m != nil && w.namesSecret(m[1]) {
			w.pend = pending{prefix: append(append([]byte(nil), m[1]...), ", "...)}
		}
		return
	}
	if l := bytes.TrimLeft(t, " \t"); len(l) > 2 && l[0] == '-' && (l[1] == ' ' || l[1] == '\t') {
		if m := yamlListItem.FindSubmatch(c); m != nil && w.namesSecret(m[1]) {
			w.pend = pending{prefix: append(append([]byte(nil), m[1]...), ' '), strip: true}
			return
		}
	}
	i := len(t) - 1
	for i >= 0 && t[i] != ' ' && t[i] != '\t' {
		i--
	}
	if i < 0 || i+1 >= len(t) || t[i+1] != '-' {
		return
	}
	if f := t[i+1:]; w.namesSecret(f) {
		w.pend = pending{prefix: append(append([]byte(nil), f...), ' '), indent: true}
	}
}

// namesSecret: a flag or key that takes a secret (or a user:password).
func (w *Writer) namesSecret(f []byte) bool {
	f = bytes.Trim(f, `"'`)
	return kindOf(string(f)) != "" || wrappedFlags[string(f)]
}

// joinPending redacts c read after what the line before left pending, or
// returns false when c does not continue it.
func (w *Writer) joinPending(c []byte) ([]byte, bool) {
	p := w.pend
	w.pend = pending{}
	lead := leading(c)
	body := c[len(lead):]
	if p.indent && len(lead) == 0 || len(body) == 0 || body[0] == '-' && !p.strip {
		return nil, false
	}
	if p.strip {
		if len(body) < 3 || body[0] != '-' || body[1] != ' ' && body[1] != '\t' {
			return nil, false
		}
		lead = c[:len(lead)+2]
		body = c[len(lead):]
		if len(body) == 0 || body[0] == '-' {
			return nil, false
		}
	} else if !p.indent && body[0] != '"' {
		return nil, false
	}
	joined := append(append([]byte(nil), p.prefix...), body...)
	low := append([]byte(nil), joined...)
	for i, b := range low {
		if b >= 'A' && b <= 'Z' {
			low[i] = b + 'a' - 'A'
		}
	}
	r := w.rules(joined, low)
	if !bytes.HasPrefix(r, p.prefix) {
		return nil, false
	}
	return append(append([]byte(nil), lead...), r[len(p.prefix):]...), true
}

// archiverItem redacts a glued -p switch in a list item after an
// archiver's name (["7z.exe"] then args: ["a", "-pX"], over lines or not).
func (w *Writer) archiverItem(c []byte) []byte {
	lead := leading(c)
	if !listLine(c[len(lead):]) {
		return c
	}
	joined := append([]byte("7z "), c[len(lead):]...)
	r := w.archivers(joined)
	if !bytes.HasPrefix(r, []byte("7z ")) {
		return c
	}
	return append(append([]byte(nil), lead...), r[3:]...)
}

// listLine: a list's item (YAML "- x", JSON "x",) or a list ("args": [...]).
func listLine(t []byte) bool {
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '"', '\'', '[':
		return true
	case '-':
		return len(t) > 1 && (t[1] == ' ' || t[1] == '\t')
	}
	return bytes.IndexByte(t, '[') >= 0
}
