package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wincni/diag/capture/etl"
)

// ConvertStats say what a conversion wrote.
type ConvertStats struct {
	Packets    int64 // enhanced packet blocks written
	Drops      int64 // of them, drop events
	Interfaces int   // one per component and link type
	Skipped    int64 // packet events whose payload type has no link type (HTTP, TCP ...)
	Notes      []string
}

// ConvertETL writes the packet events of a pktmon ETL file as pcapng, as
// etl2pcapng does on Windows: one enhanced packet block per packet event
// (160 and 170) in time order, on one interface per component (named
// after it; a component logging two payload types gets one per type),
// captured and original lengths as logged, the event's time to 100 ns;
// each packet's comment names its component and direction, and a drop's
// says "drop: <reason> at <location>". PktGroupId becomes the packet id.
//
// pktmon logs its component rundown when it stops, at the end of the
// file: a packet converted before the rundown is read (past the reorder
// window) names its component by number only. ConvertETLFile reads the
// file twice to name them all.
func ConvertETL(in io.Reader, name string, out io.Writer, app string) (ConvertStats, error) {
	return convertETL(context.Background(), in, name, out, app, nil)
}

func convertETL(ctx context.Context, in io.Reader, name string, out io.Writer, app string, rundown *etl.Reader) (ConvertStats, error) {
	var st ConvertStats
	r, err := etl.NewReader(in, name, etl.Limits{})
	if err != nil {
		return st, &InputError{Path: name, Err: err}
	}
	defer r.Close()
	if rundown != nil {
		r.UseRundown(rundown)
	}
	w, err := newNgSection(out, app)
	if err != nil {
		return st, err
	}
	type ifKey struct {
		ndis bool
		id   uint32 // component, or the NDIS adapter's IfIndex
		link LinkType
	}
	ifaces := map[ifKey]uint32{}
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return st, fmt.Errorf("%s: conversion stopped after %d packets: %w", name, st.Packets, context.Cause(ctx))
		}
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, &InputError{Path: name, Err: err}
		}
		link, ok := etlLinkType(p.Type)
		if !ok {
			st.Skipped++
			continue
		}
		k := ifKey{p.NDIS, uint32(p.Component), link}
		if p.NDIS {
			k.id = p.IfIndex
		}
		c, _ := r.Component(p.Component)
		id, ok := ifaces[k]
		if !ok {
			id = uint32(len(ifaces))
			ifaces[k] = id
			name, desc := etlInterfaceName(&c), etlInterfaceDesc(&c)
			if p.NDIS {
				name, desc = ndisInterfaceName(p.IfIndex), "netsh trace (Microsoft-Windows-NDIS-PacketCapture)"
			}
			if err := w.addInterface(name, desc, link, 0); err != nil {
				return st, err
			}
		}
		o := epbOptions{comment: etlComment(r, p, &c), outbound: p.Direction.Outbound(), packetID: p.GroupID, dropped: p.Dropped}
		ticks := uint64(p.Filetime - etlFiletimeEpoch)
		if err := w.writePacketOn(id, ticks, p.Data, max(p.OriginalSize, len(p.Data)), o); err != nil {
			return st, err
		}
		st.Packets++
		if p.Dropped {
			st.Drops++
		}
	}
	if err := r.NotACapture(); err != nil {
		return st, &InputError{Path: name, Err: err}
	}
	st.Interfaces = len(ifaces)
	st.Notes = r.Notes()
	if st.Skipped > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%s: %d packet events log a payload type with no pcapng link type (not Ethernet, Wi-Fi or IP) and are left out, as etl2pcapng leaves them.", name, st.Skipped))
	}
	return st, w.Flush()
}

// ConvertETLFile converts the ETL file at path into a pcapng file at
// outPath (written to a temporary file, renamed when complete). When ctx
// ends, it stops and outPath is left as it was.
func ConvertETLFile(ctx context.Context, path, outPath, app string) (ConvertStats, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return ConvertStats{}, &InputError{Path: path, Err: err}
	}
	defer f.Close()
	// First the rundown, from wherever it is in the file.
	rundown, err := etl.Scan(bufio.NewReaderSize(f, 1<<20), path, etl.Limits{})
	if err != nil {
		return ConvertStats{}, &InputError{Path: path, Err: err}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ConvertStats{}, &InputError{Path: path, Err: err}
	}
	tmp, err := os.CreateTemp(dirOf(outPath), ".diag-convert-*.pcapng")
	if err != nil {
		return ConvertStats{}, err
	}
	defer os.Remove(tmp.Name())
	st, err := convertETL(ctx, bufio.NewReaderSize(f, 1<<20), path, tmp, app, rundown)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return st, err
	}
	return st, os.Rename(tmp.Name(), outPath)
}

func dirOf(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[:i+1]
	}
	return "."
}

// etlFiletimeEpoch is 1970-01-01 in FILETIME.
const etlFiletimeEpoch = 116444736000000000

// etlLinkType maps PKTMON_PACKET_TYPE to a link type: Ethernet, 802.11,
// raw IP; the others carry no link header diag (or Wireshark) can frame.
func etlLinkType(t etl.PacketType) (LinkType, bool) {
	switch t {
	case etl.PacketEthernet:
		return LinkTypeEthernet, true
	case etl.PacketWiFi:
		return LinkTypeIEEE80211, true
	case etl.PacketIP:
		return LinkTypeRaw, true
	}
	return 0, false
}

// LinkTypeIEEE80211 is 802.11 without radio header, what pktmon logs on
// Wi-Fi.
const LinkTypeIEEE80211 LinkType = 105

func etlInterfaceName(c *etl.Component) string {
	if c.Description != "" {
		return fmt.Sprintf("%s [%d]", c.Description, c.ID)
	}
	if c.Name != "" {
		return fmt.Sprintf("%s [%d]", c.Name, c.ID)
	}
	return fmt.Sprintf("pktmon component %d", c.ID)
}

func etlInterfaceDesc(c *etl.Component) string {
	var parts []string
	if c.Name != "" {
		parts = append(parts, c.Name)
	}
	if c.TypeName != "" {
		parts = append(parts, c.TypeName)
	}
	if c.VSwitch != "" {
		parts = append(parts, "vSwitch "+c.VSwitch)
	}
	parts = append(parts, fmt.Sprintf("pktmon component %d", c.ID))
	return strings.Join(parts, ", ")
}

// etlComment names the packet's component and direction, and for a drop
// its reason and location.
func etlComment(r *etl.Reader, p *etl.Packet, c *etl.Component) string {
	if p.NDIS {
		return fmt.Sprintf("%s, %s", ndisInterfaceName(p.IfIndex), p.Direction)
	}
	s := fmt.Sprintf("%s, %s", c.Label(), p.Direction)
	if p.Dropped {
		s += fmt.Sprintf("; drop: %s at %s", r.DropReasonName(p.DropReason), etl.LocationName(p.DropLocation))
	}
	return s
}

// ndisInterfaceName names an adapter of a netsh trace: the file names it
// by index only.
func ndisInterfaceName(ifIndex uint32) string { return fmt.Sprintf("ifIndex %d", ifIndex) }
