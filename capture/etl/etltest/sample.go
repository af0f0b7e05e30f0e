package etltest

import (
	"bytes"
	"time"
)

// VFPDrop is a small pktmon ETL file: a UDP packet (10.244.1.5 to
// 10.244.2.7) seen at a container's vSwitch port, then dropped there by
// VFP (reason 12, "VFP Rule Drop").
func VFPDrop() ([]byte, error) {
	var b bytes.Buffer
	w, err := NewWriter(&b, Options{Compress: true})
	if err != nil {
		return nil, err
	}
	w.ValueMap("DropReason", map[uint32]string{12: "VFP Rule Drop"})
	w.Component(Component{ID: 4, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 5e1d", VSwitch: "cbr0"})
	frame := make([]byte, 60)
	copy(frame[12:], []byte{0x08, 0x00, 0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 10, 244, 1, 5, 10, 244, 2, 7})
	w.Packet(Packet{GroupID: 1, Type: 1, Component: 4, Direction: 5, Data: frame})
	w.Packet(Packet{At: time.Millisecond, GroupID: 1, Type: 1, Component: 4, Direction: 6, Dropped: true, DropReason: 12, DropLocation: 0xE0006005, Data: frame})
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
