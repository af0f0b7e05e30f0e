package payload

import (
	"bytes"
	"compress/gzip"
	"testing"
)

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestIsCapture(t *testing.T) {
	pcap := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0}
	pcapng := []byte{0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0, 0, 0}
	for _, c := range []struct {
		name string
		head []byte
		want bool
	}{
		{"pcap", pcap, true},
		{"pcapng", pcapng, true},
		{"gzip'd pcap", gz(pcap), true},
		{"gzip'd pcapng", gz(pcapng), true},
		{"gzip'd text", gz([]byte("password=x\n")), false},
		{"zip", []byte("PK\x03\x04rest"), false},
		{"text", []byte("hello"), false},
		{"short", []byte{0xd4}, false},
	} {
		if got := IsCapture(c.head); got != c.want {
			t.Errorf("%s: IsCapture = %v", c.name, got)
		}
	}
}
