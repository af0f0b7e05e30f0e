package bundle

import (
	"bytes"
	"testing"
)

// FuzzOpenZip feeds arbitrary bytes to the zip reader: it must return an
// error or a bundle whose entries all read within the limits, never panic.
func FuzzOpenZip(f *testing.F) {
	f.Add(zipOf(f, "manifest.json", `{"format":"diag-bundle","version":1,"node":"n"}`, "hns/v1/networks.json", "[]"))
	f.Add(zipOf(f, "../x", "y"))
	f.Add(zipOf(f, "a", "1", "a", "2"))
	f.Add(bomb(f, 10, 1<<20))
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	f.Add([]byte{})
	lim := Limits{MaxEntries: 50, MaxEntrySize: 1 << 20, MaxTotalSize: 4 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := OpenZip(bytes.NewReader(data), int64(len(data)), "fuzz.zip", lim)
		if err != nil {
			return
		}
		for _, name := range b.Names() {
			got, err := b.ReadFile(name)
			if err == nil && int64(len(got)) > lim.MaxEntrySize {
				t.Fatalf("entry %s read %d bytes past the limit", name, len(got))
			}
		}
		Verify(b)
	})
}
