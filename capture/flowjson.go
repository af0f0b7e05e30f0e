package capture

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends the flow as encoding/json writes it from its field
// tags (HTML characters not escaped), without reflection: a capture lists
// its flows by the hundred thousand, and their reflective encoding took a
// tenth of decoding a 300,000-packet capture. TestFlowJSON holds the two
// to the same bytes. A time encoding/json refuses is refused alike.
func (fl *Flow) AppendJSON(b []byte) ([]byte, error) {
	if !fl.JSONEncodable() {
		return appendReflected(b, fl)
	}
	b = append(b, `{"packets":`...)
	b = strconv.AppendInt(b, fl.Packets, 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, fl.Bytes, 10)
	b = append(b, `,"vni":`...)
	b = strconv.AppendUint(b, uint64(fl.VNI), 10)
	b = append(b, `,"proto":`...)
	b = appendJSONString(b, fl.Proto)
	b = append(b, `,"src":`...)
	b = appendJSONAddr(b, fl.Src)
	if fl.SrcPort != 0 {
		b = append(b, `,"srcPort":`...)
		b = strconv.AppendUint(b, uint64(fl.SrcPort), 10)
	}
	b = append(b, `,"dst":`...)
	b = appendJSONAddr(b, fl.Dst)
	if fl.DstPort != 0 {
		b = append(b, `,"dstPort":`...)
		b = strconv.AppendUint(b, uint64(fl.DstPort), 10)
	}
	if fl.State != "" {
		b = append(b, `,"state":`...)
		b = appendJSONString(b, fl.State)
	}
	b = append(b, `,"tunnelSrc":`...)
	b = appendJSONAddr(b, fl.TunnelSrc)
	b = append(b, `,"tunnelDst":`...)
	b = appendJSONAddr(b, fl.TunnelDst)
	b = append(b, `,"first":"`...)
	b = fl.First.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","last":"`...)
	b = fl.Last.AppendFormat(b, time.RFC3339Nano)
	return append(b, `"}`...), nil
}

// JSONEncodable says whether encoding/json encodes the flow: whether its
// times are ones time.Time's MarshalJSON takes (it never refuses anything
// else of a flow).
func (fl *Flow) JSONEncodable() bool { return jsonTime(fl.First) && jsonTime(fl.Last) }

// jsonTime: what time.Time's MarshalJSON writes as RFC 3339 (years 0 to
// 9999, an offset under 24 hours); it refuses the rest, through
// appendReflected.
func jsonTime(t time.Time) bool {
	_, off := t.Zone()
	y := t.Year()
	return y >= 0 && y <= 9999 && off > -24*3600 && off < 24*3600
}

// appendJSONAddr writes an address as its MarshalText does ("" for none).
func appendJSONAddr(b []byte, a netip.Addr) []byte {
	if !a.IsValid() {
		return append(b, `""`...)
	}
	if a.Zone() != "" {
		return appendJSONString(b, a.String()) // a zone is any text
	}
	b = append(b, '"')
	b = a.AppendTo(b)
	return append(b, '"')
}

// appendJSONString quotes the plain ASCII words a flow holds directly and
// leaves anything else to encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			b, _ = appendReflected(b, s)
			return b
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendReflected appends v as a json.Encoder without HTML escaping
// writes it, less the newline.
func appendReflected(b []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...), nil
}
