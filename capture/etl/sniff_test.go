package etl

import (
	"bytes"
	"strings"
	"testing"
)

// An ETL file cut inside its first 80 bytes is told cut short; other
// short files, and whole ETL files, are not.
func TestIsCutETL(t *testing.T) {
	b := fixture(t, true)
	for n := 8; n < SniffLen; n++ {
		if !IsCutETL(b[:n]) {
			t.Errorf("the first %d bytes of an ETL file are not seen as one cut short", n)
		}
		_, err := NewReader(bytes.NewReader(b[:n]), "cut.etl", Limits{})
		if err == nil || !strings.HasPrefix(err.Error(), "an ETL file cut short") {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	for _, s := range [][]byte{b[:7], b[:SniffLen], b, []byte("hello, world: a text file"), make([]byte, 40),
		append([]byte{0x00, 0x04, 0, 0, 0xf8, 0x01, 0, 0}, bytes.Repeat([]byte{0xff}, 60)...)} {
		if IsCutETL(s) {
			t.Errorf("%d bytes starting %x are seen as an ETL file cut short", len(s), s[:min(len(s), 8)])
		}
	}
}
