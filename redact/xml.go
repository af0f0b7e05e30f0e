package redact

import (
	"bytes"
	"regexp"
)

// unattend.xml and its kind put a password in an element of its own,
// over several lines:
//
//	<AdministratorPassword>
//	    <Value>base64...</Value>
//	    <PlainText>false</PlainText>
//	</AdministratorPassword>
//
// An element whose name names a secret, opened alone on its line, makes
// the <Value> elements inside it (<Key> in <ProductKey>), and text on a line of its own, secret
// until it closes.

var xmlOpen, xmlOpenNamed, xmlNamed, xmlValue, xmlValueAttr, xmlCDATA *regexp.Regexp

// xmlPrefix is an element name's namespace prefix (<cfg:Password>).
const xmlPrefix = `(?:[A-Za-z_][\w.\-]*:)?`

func compileXML() {
	xmlOpen = regexp.MustCompile(`^[ \t]*<(` + xmlPrefix + keyName + `)(?:\s[^>]*)?>[ \t]*$`)
	// An element named by its attribute: <setting name="ApiToken">, a
	// PSCredential's <SS N="Password">, <entry key="client.secret">.
	xmlOpenNamed = regexp.MustCompile(`^[ \t]*<([A-Za-z][\w:.\-]*)\s[^>]*?\b(?i:n|name|key)\s*=\s*"(` + keyName + `)"[^>]*>[ \t]*$`)
	// The text may stand in a <value> of its own (.NET settings on one
	// line: <setting name="StorageSecret"><value>x</value>).
	xmlNamed = regexp.MustCompile(`<([A-Za-z][\w:.\-]*)\s[^>]*?\b(?i:n|name|key)\s*=\s*"(` + keyName + `)"[^>/]*>(?:[ \t]*<(?i:value)>)?([^<]+)</`)
	// An element naming a secret that holds it in a value attribute:
	// <password value="x"/>, <ProxyPassword value="x"></ProxyPassword>.
	xmlValueAttr = regexp.MustCompile(`<(` + xmlPrefix + keyName + `)\s[^>]*?\b(?i:value)\s*=\s*("[^"]*"|'[^']*')`)
	// An element naming a secret whose text is CDATA.
	xmlCDATA = regexp.MustCompile(`<(` + xmlPrefix + keyName + `)(?:\s[^>]*)?>[ \t]*(?:<(?i:value)>[ \t]*)?<!\[CDATA\[(.*?)\]\]>`)
	// <Value> holds a password; <Key> a product key (<ProductKey><Key>).
	xmlValue = regexp.MustCompile(`(?i)(<` + xmlPrefix + `(?:Value|Key)>(?:<!\[CDATA\[)?)([^<\]]+)(\]\]>)?(</` + xmlPrefix + `(?:Value|Key)>)`)
}

// xmlLine handles a line inside, or opening, a secret element.
func (w *Writer) xmlLine(c []byte) []byte {
	if bytes.IndexByte(c, '<') >= 0 {
		// An element naming a secret opened alone: it, or the innermost
		// of several (<Credentials> then <Password>), says the kind.
		if m := xmlOpen.FindSubmatch(c); m != nil {
			if kind := kindOf(string(m[1])); kind != "" {
				w.xmlClose = append([]byte("</"), m[1]...)
				w.xmlKind = kind
				return c
			}
		}
		if m := xmlOpenNamed.FindSubmatch(c); m != nil {
			if kind := kindOf(string(m[2])); kind != "" {
				w.xmlClose = append([]byte("</"), m[1]...)
				w.xmlKind = kind
				return c
			}
		}
		c = w.sub(c, xmlNamed, w.keyed(2, 3))
	}
	if w.xmlClose == nil {
		return c
	}
	if bytes.Contains(c, w.xmlClose) || bytes.HasPrefix(bytes.TrimSpace(c), []byte("</")) && !xmlValueClose(c) {
		w.xmlClose = nil // its end, or the end of what holds it
	}
	if t := bytes.TrimSpace(c); bytes.HasPrefix(t, []byte("<![CDATA[")) && bytes.HasSuffix(t, []byte("]]>")) {
		// The secret as CDATA on a line of its own.
		v := t[len("<![CDATA[") : len(t)-len("]]>")]
		if !secretValue("value", w.xmlKind, v) {
			return c
		}
		w.count(w.xmlKind)
		i := bytes.Index(c, v)
		return append(append(append([]byte(nil), c[:i]...), Placeholder...), c[i+len(v):]...)
	}
	if t := bytes.TrimSpace(c); len(t) > 0 && bytes.IndexByte(t, '<') < 0 {
		// The secret on a line of its own between the tags.
		if !secretValue("value", w.xmlKind, t) {
			return c
		}
		w.count(w.xmlKind)
		i := bytes.Index(c, t)
		return append(append(append([]byte(nil), c[:i]...), Placeholder...), c[i+len(t):]...)
	}
	return w.sub(c, xmlValue, w.groupKind(2, w.xmlKind))
}

// xmlValueClose: the line closes a <Value> or <Key> (<cfg:Value> too),
// which ends a value, not the secret element holding it.
func xmlValueClose(c []byte) bool {
	for i := 0; ; {
		j := bytes.Index(c[i:], []byte("</"))
		if j < 0 {
			return false
		}
		i += j + 2
		k := i
		for k < len(c) && c[k] != '>' && c[k] != ' ' {
			k++
		}
		name := c[i:k]
		if p := bytes.LastIndexByte(name, ':'); p >= 0 {
			name = name[p+1:]
		}
		if bytes.EqualFold(name, []byte("Value")) || bytes.EqualFold(name, []byte("Key")) {
			return true
		}
	}
}
