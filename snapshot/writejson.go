package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// WriteJSON writes s as an encoder indenting by two spaces, without HTML
// escaping, writes it (json.Encoder with SetIndent("", "  ")), byte for
// byte, but one list element at a time: the encoder builds the whole
// document in memory first, 250 MB for a 5,000-node cluster's bundle,
// where this holds one element.
func (s *Snapshot) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var compact, indented bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	// value writes v's JSON indented as a value nested at prefix.
	value := func(v any, prefix string) error {
		compact.Reset()
		indented.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		if err := json.Indent(&indented, bytes.TrimSuffix(compact.Bytes(), []byte{'\n'}), prefix, "  "); err != nil {
			return err
		}
		_, err := bw.Write(indented.Bytes())
		return err
	}
	t, v := reflect.TypeFor[Snapshot](), reflect.ValueOf(s).Elem()
	bw.WriteString("{")
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		name, omitEmpty, omitZero, ok := jsonField(f)
		if !ok {
			continue
		}
		fv := v.Field(i)
		if omitEmpty && emptyJSON(fv) || omitZero && zeroJSON(fv) {
			continue
		}
		if !first {
			bw.WriteString(",")
		}
		first = false
		fmt.Fprintf(bw, "\n  %q: ", name)
		if fv.Kind() != reflect.Slice {
			if err := value(fv.Interface(), "  "); err != nil {
				return fmt.Errorf("snapshot %s: %w", name, err)
			}
			continue
		}
		if fv.Len() == 0 { // a list that is empty but there (no omitempty)
			bw.WriteString("[]")
			continue
		}
		bw.WriteString("[")
		for j := range fv.Len() {
			if j > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			if err := value(fv.Index(j).Interface(), "    "); err != nil {
				return fmt.Errorf("snapshot %s[%d]: %w", name, j, err)
			}
		}
		bw.WriteString("\n  ]")
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// jsonField is an exported field's JSON name and when it is omitted; ok
// is false for a field the JSON leaves out. Snapshot embeds no struct.
func jsonField(f reflect.StructField) (name string, omitEmpty, omitZero, ok bool) {
	if !f.IsExported() || f.Anonymous {
		return "", false, false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for o := range strings.SplitSeq(opts, ",") {
		omitEmpty = omitEmpty || o == "omitempty"
		omitZero = omitZero || o == "omitzero"
	}
	return name, omitEmpty, omitZero, true
}

// zeroJSON is encoding/json's omitzero test: the value's IsZero method
// when it has one, else the type's zero value.
func zeroJSON(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		return z.IsZero()
	}
	return v.IsZero()
}

// emptyJSON is encoding/json's omitempty test.
func emptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
