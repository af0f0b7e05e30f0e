package etl

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"
)

// Event ids of Microsoft-Windows-PktMon the reader decodes.
const (
	evComponent      = 20 // Id u16, Type u16, Name UTF-16z, Description UTF-16z
	evPropertyU32    = 30 // ComponentId u16, Type u16, Value u32
	evPropertyGUID   = 40
	evNdisMedium     = 60
	evIPv4           = 65 // ComponentId u16, Type u16, IpAddress (network order)
	evIPv6           = 66
	evMAC            = 70 // ComponentId u16, Type u16, Size u32, Value[Size]
	evVSwitchName    = 73 // ComponentId u16, Type u16, Value UTF-16z
	evEtherType      = 75
	evDropCounters   = 80
	evFlowCounters   = 90
	evPacket         = 160
	evDroppedPacket  = 170
	packetFixedSize  = 34
	maxComponentName = 256
	maxAddrsPerComp  = 16
)

// Packet is one packet event (160, or 170 for a drop): one appearance of
// a packet at one component. Data is valid until the next call to Next.
type Packet struct {
	Filetime     int64 // 100 ns since 1601, UTC
	Timestamp    int64 // the raw clock value
	GroupID      uint64
	Number       uint16 // PktNumber
	Appearance   uint16 // AppearanceCount: the how-manieth component this packet reached
	Direction    Direction
	Type         PacketType
	Component    uint16
	Edge         uint16
	Filter       uint16
	Dropped      bool // event 170
	DropReason   uint32
	DropLocation uint32
	OriginalSize int
	Data         []byte
	Processor    uint16
	// NDIS marks a packet of Microsoft-Windows-NDIS-PacketCapture (netsh
	// trace): it has no PktGroupId or component, Component is its
	// adapter's LowerIfIndex (IfIndex, whole).
	NDIS    bool
	IfIndex uint32
}

// PacketType is PKTMON_PACKET_TYPE: what Data starts with.
type PacketType uint16

// Packet types pktmon logs payloads of.
const (
	PacketUnknown  PacketType = 0
	PacketEthernet PacketType = 1
	PacketWiFi     PacketType = 2
	PacketIP       PacketType = 3
)

func (t PacketType) String() string {
	switch t {
	case PacketUnknown:
		return "Unknown"
	case PacketEthernet:
		return "Ethernet"
	case PacketWiFi:
		return "WiFi"
	case PacketIP:
		return "IP"
	case 4:
		return "HTTP"
	}
	return fmt.Sprintf("type %d", uint16(t))
}

// Direction is PKTMON_DIRECTION_TAG: In/Out at a component's edge, Rx/Tx
// at a NIC, Ingress/Egress at the vSwitch.
type Direction uint16

var directionNames = [...]string{"None", "In", "Out", "Rx", "Tx", "Ingress", "Egress"}

func (d Direction) String() string {
	if int(d) < len(directionNames) {
		return directionNames[d]
	}
	return fmt.Sprintf("direction %d", uint16(d))
}

// Outbound says whether the packet leaves the host at this point: 1 out
// (Out, Tx, Egress), -1 in (In, Rx, Ingress), 0 unknown.
func (d Direction) Outbound() int8 {
	switch d {
	case 2, 4, 6:
		return 1
	case 1, 3, 5:
		return -1
	}
	return 0
}

// Component is a pktmon component (a driver instance the packet can
// cross) from the rundown events 20-90.
type Component struct {
	ID          uint16
	Type        uint16
	TypeName    string // from the embedded ComponentType map, when it has the value
	Name        string // the driver, e.g. "vmswitch.sys"
	Description string // e.g. "Hyper-V Virtual Switch Extension Adapter"
	VSwitch     string // the vSwitch name (event 73)
	MAC         []byte
	IPs         []netip.Addr
	IfIndex     uint32 // property 1, 0 when not logged
}

// Label names the component for a report: its description (or name)
// and id.
func (c *Component) Label() string {
	s := c.Description
	if s == "" {
		s = c.Name
	}
	if c.VSwitch != "" {
		s += " (vSwitch " + c.VSwitch + ")"
	}
	if s == "" {
		return fmt.Sprintf("component %d", c.ID)
	}
	return fmt.Sprintf("%s [%d]", s, c.ID)
}

// decodePacket reads the user data of a 160/170 event:
//
//	PktGroupId u64, PktNumber u16, AppearanceCount u16, DirTag u16,
//	PacketType u16, ComponentId u16, EdgeId u16, FilterId u16,
//	DropReason u32, DropLocation u32, OriginalPayloadSize u16,
//	LoggedPayloadSize u16, Payload[LoggedPayloadSize]
func decodePacket(p *Packet, u []byte) error {
	if len(u) < packetFixedSize {
		return fmt.Errorf("a packet event of %d bytes, under its %d-byte fixed part", len(u), packetFixedSize)
	}
	le := binary.LittleEndian
	p.GroupID = le.Uint64(u[0:])
	p.Number = le.Uint16(u[8:])
	p.Appearance = le.Uint16(u[10:])
	p.Direction = Direction(le.Uint16(u[12:]))
	p.Type = PacketType(le.Uint16(u[14:]))
	p.Component = le.Uint16(u[16:])
	p.Edge = le.Uint16(u[18:])
	p.Filter = le.Uint16(u[20:])
	p.DropReason = le.Uint32(u[22:])
	p.DropLocation = le.Uint32(u[26:])
	p.OriginalSize = int(le.Uint16(u[30:]))
	n := int(le.Uint16(u[32:]))
	if packetFixedSize+n > len(u) {
		return fmt.Errorf("a packet event logging %d payload bytes with %d in the event", n, len(u)-packetFixedSize)
	}
	p.Data = u[packetFixedSize : packetFixedSize+n]
	return nil
}

// components holds the rundown, bounded: ids are 16 bits and every
// string and list is capped.
type components map[uint16]*Component

func (cs components) get(id uint16) *Component {
	c := cs[id]
	if c == nil {
		c = &Component{ID: id}
		cs[id] = c
	}
	return c
}

// rundown applies one component event (20-90) to the table; it returns
// an error for an event too short for its layout.
func (cs components) rundown(id uint16, u []byte) error {
	le := binary.LittleEndian
	if len(u) < 4 {
		return fmt.Errorf("event %d of %d bytes, under the 4 its ids take", id, len(u))
	}
	cid, typ := le.Uint16(u[0:]), le.Uint16(u[2:])
	switch id {
	case evComponent:
		c := cs.get(cid)
		c.Type = typ
		var n int
		c.Name, n = utf16z(u[4:], maxComponentName)
		c.Description, _ = utf16z(u[4+n:], maxComponentName)
	case evPropertyU32:
		if len(u) < 8 {
			return fmt.Errorf("event %d of %d bytes, under 8", id, len(u))
		}
		if typ == 1 { // IfIndex
			cs.get(cid).IfIndex = le.Uint32(u[4:])
		}
	case evIPv4:
		if len(u) < 8 {
			return fmt.Errorf("event %d of %d bytes, under 8", id, len(u))
		}
		c := cs.get(cid)
		if len(c.IPs) < maxAddrsPerComp {
			c.IPs = append(c.IPs, netip.AddrFrom4([4]byte(u[4:8])))
		}
	case evIPv6:
		if len(u) < 20 {
			return fmt.Errorf("event %d of %d bytes, under 20", id, len(u))
		}
		c := cs.get(cid)
		if len(c.IPs) < maxAddrsPerComp {
			c.IPs = append(c.IPs, netip.AddrFrom16([16]byte(u[4:20])))
		}
	case evMAC:
		if len(u) < 8 {
			return fmt.Errorf("event %d of %d bytes, under 8", id, len(u))
		}
		n := int(le.Uint32(u[4:]))
		if n > len(u)-8 || n > 32 {
			return fmt.Errorf("event %d giving a %d-byte address in %d bytes", id, n, len(u)-8)
		}
		cs.get(cid).MAC = append([]byte(nil), u[8:8+n]...)
	case evVSwitchName:
		cs.get(cid).VSwitch, _ = utf16z(u[4:], maxComponentName)
	}
	return nil
}

// Time is the packet's FILETIME as UTC.
func (p *Packet) Time() time.Time { return FiletimeToTime(p.Filetime) }
