package redact

import (
	"bytes"
	"regexp"
)

// A Key Vault secret as az keyvault secret show (or the REST API) prints
// it: an object whose id is under a vault's /secrets/ holds the secret
// itself as "value" (a PFX, for a certificate's secret). The id (and
// the contentType) come before the value in az's sorted output; on one
// line they may come in any order.

var kvValue *regexp.Regexp

func compileKeyVault() {
	kvValue = regexp.MustCompile(`("value"[ \t]*:[ \t]*)("(?:[^"\\\n]|\\.)*")`)
}

// kvMarked: the line states a Key Vault secret's id.
func kvMarked(lower []byte) bool {
	return has(lower, "/secrets/") && has(lower, ".vault.")
}

// keyVault redacts a Key Vault secret's value on this line, or notes that
// an object being printed is one.
func (w *Writer) keyVault(c, lower []byte) []byte {
	marked := kvMarked(lower)
	if marked && has(lower, `"value"`) {
		return w.sub(c, kvValue, w.group(2, KindSecret)) // the whole object on one line
	}
	if marked {
		// Only a member of a pretty-printed object: "id": or "contentType":.
		if t := c[indentOf(c):]; bytes.HasPrefix(t, []byte(`"id"`)) || bytes.HasPrefix(t, []byte(`"contentType"`)) {
			w.kvIndent = indentOf(c) + 1
		}
		return c
	}
	if w.kvIndent > 0 {
		in := indentOf(c)
		if in < w.kvIndent-1 { // a member's own object closes at its indentation
			w.kvIndent = 0 // the object ended
			return c
		}
		if in == w.kvIndent-1 && bytes.HasPrefix(c[in:], []byte(`"value"`)) {
			w.kvIndent = 0
			return w.sub(c, kvValue, w.group(2, KindSecret))
		}
	}
	return c
}
