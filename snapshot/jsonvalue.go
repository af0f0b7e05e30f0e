package snapshot

import (
	"bytes"
	"encoding/json"
)

// marshalUnescaped is v's JSON without HTML escaping, for a MarshalJSON:
// encoding/json escapes what a MarshalJSON returns again when its encoder
// is set to, so the value reads as the default encoding of the type it
// replaces would, through json.Marshal or an encoder that does not escape.
func marshalUnescaped(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
