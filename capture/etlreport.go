package capture

import (
	"fmt"
	"net/netip"
	"sort"

	"github.com/wincni/diag/capture/etl"
)

// ETLFile is what a pktmon ETL file holds beyond its packets: the
// components they crossed and the drops with their reasons.
type ETLFile struct {
	Path          string `json:"path"`
	WindowsBuild  uint32 `json:"windowsBuild"`
	PacketEvents  int64  `json:"packetEvents"` // events 160 and 170: one per packet per component
	Packets       int64  `json:"packets"`      // distinct PktGroupId
	LoggedBytes   int64  `json:"loggedBytes"`
	OriginalBytes int64  `json:"originalBytes"`
	DropEvents    int64  `json:"dropEvents"`
	// Drops counts drop events per reason name (the file's own names).
	Drops map[string]int64 `json:"drops"`
	// DropsByLocation counts them per location (layer and number).
	DropsByLocation map[string]int64 `json:"dropsByLocation"`
	DropDetails     []ETLDrop        `json:"dropDetails,omitempty"`
	Components      []ETLComponent   `json:"components"`
	Paths           []ETLPath        `json:"paths,omitempty"`
	FirstPacket     string           `json:"firstPacket,omitempty"` // RFC 3339, 100 ns
	LastPacket      string           `json:"lastPacket,omitempty"`
	Undecoded       int64            `json:"undecodedPayloads,omitempty"` // events whose payload type has no link header
}

// ETLComponent is a component with packet events.
type ETLComponent struct {
	ID          uint16 `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Type        string `json:"type,omitempty"`
	VSwitch     string `json:"vSwitch,omitempty"`
	Events      int64  `json:"events"`
	Drops       int64  `json:"drops,omitempty"`
}

// ETLDrop is the drops of one reason at one location of one component.
type ETLDrop struct {
	Reason      string   `json:"reason"`
	ReasonCode  uint32   `json:"reasonCode"`
	Location    string   `json:"location"`
	Layer       string   `json:"layer,omitempty"` // NDIS, vSwitch, VFP, TCP/IP ...
	Component   string   `json:"component"`
	ComponentID uint16   `json:"componentId"`
	Events      int64    `json:"events"`
	First       string   `json:"first"`
	Flows       []string `json:"exampleFlows,omitempty"` // the first distinct ones
	// Multicast counts the drop events of broadcast and multicast packets.
	Multicast int64 `json:"multicast,omitempty"`

	group    *dropGroup
	compType uint16
}

// ETLPath is a sequence of components packets crossed, in time order,
// and how many packets (distinct PktGroupId) took it.
type ETLPath struct {
	Components []uint16 `json:"components"`
	Dropped    bool     `json:"dropped,omitempty"`
	Packets    int64    `json:"packets"`
}

// etlTime formats a FILETIME as RFC 3339 with its 100 ns digits.
func etlTime(ft int64) string {
	return etl.FiletimeToTime(ft).Format("2006-01-02T15:04:05.0000000Z07:00")
}

// report sums up the file once it has been read.
func (s *etlSource) report(path string) *ETLFile {
	sum := s.r.Summary()
	f := &ETLFile{Path: path, WindowsBuild: s.r.Header().Build, PacketEvents: sum.PacketEvents, Packets: sum.Packets,
		LoggedBytes: sum.LoggedBytes, OriginalBytes: sum.OriginalBytes, DropEvents: sum.DropEvents,
		Drops: map[string]int64{}, DropsByLocation: map[string]int64{}, Components: []ETLComponent{}, Undecoded: s.skipped}
	if sum.PacketEvents > 0 {
		f.FirstPacket, f.LastPacket = etlTime(sum.FirstFiletime), etlTime(sum.LastFiletime)
	}
	for r, n := range sum.DropsByReason {
		f.Drops[s.r.DropReasonName(r)] += n
	}
	for l, n := range sum.DropsByLoc {
		f.DropsByLocation[etl.LocationName(l)] += n
	}
	for id, n := range sum.ByComponent {
		c, _ := s.r.Component(id)
		if s.ndis && c.Name == "" && c.Description == "" {
			c.Description = ndisInterfaceName(uint32(id)) + " (netsh trace)"
		}
		typ := c.TypeName
		if typ == "" && c.Type != 0 {
			typ = fmt.Sprintf("type %d", c.Type)
		}
		f.Components = append(f.Components, ETLComponent{ID: id, Name: c.Name, Description: c.Description, Type: typ,
			VSwitch: c.VSwitch, Events: n, Drops: sum.DropsByComp[id]})
	}
	sort.Slice(f.Components, func(i, j int) bool { return f.Components[i].ID < f.Components[j].ID })
	for _, g := range s.drops.order {
		c, _ := s.r.Component(g.key.component)
		// Named now: the value maps may come after the drops in the file.
		d := ETLDrop{Reason: s.r.DropReasonName(g.key.reason), ReasonCode: g.key.reason, Location: etl.LocationName(g.key.location), Layer: etl.Layer(g.key.location),
			Component: c.Label(), ComponentID: g.key.component, Events: g.events, First: etlTime(g.first), Multicast: g.multicast,
			group: g, compType: c.Type}
		for i, fl := range g.flows {
			if i == maxListed {
				break
			}
			d.Flows = append(d.Flows, fl.dropFlow.String())
		}
		f.DropDetails = append(f.DropDetails, d)
	}
	// VFP and vSwitch drops first: the overlay's silent failures.
	sort.SliceStable(f.DropDetails, func(i, j int) bool {
		pi, pj := podPathLayer(f.DropDetails[i].Layer), podPathLayer(f.DropDetails[j].Layer)
		if pi != pj {
			return pi
		}
		return f.DropDetails[i].Events > f.DropDetails[j].Events
	})
	for _, p := range s.paths.counts {
		f.Paths = append(f.Paths, *p)
	}
	sort.Slice(f.Paths, func(i, j int) bool {
		if f.Paths[i].Packets != f.Paths[j].Packets {
			return f.Paths[i].Packets > f.Paths[j].Packets
		}
		return fmt.Sprint(f.Paths[i].Components) < fmt.Sprint(f.Paths[j].Components)
	})
	return f
}

// podPathLayer says whether a drop location sits on the path of pod
// traffic only: VFP and the vSwitch see container and VM ports.
func podPathLayer(layer string) bool { return layer == "VFP" || layer == "vSwitch" }

func (f dropFlow) String() string {
	proto := map[uint8]string{1: "ICMP", 6: "TCP", 17: "UDP", 58: "ICMPv6"}[f.proto]
	if proto == "" {
		proto = fmt.Sprintf("IP protocol %d", f.proto)
	}
	s := fmt.Sprintf("%s → %s %s", f.src, f.dst, proto)
	if f.proto == 6 || f.proto == 17 {
		s = fmt.Sprintf("%s → %s %s", hostPort(f.src, f.sport), hostPort(f.dst, f.dport), proto)
	}
	if f.innerSrc.IsValid() {
		s += fmt.Sprintf(" (VXLAN: %s → %s)", f.innerSrc, f.innerDst)
	}
	return s
}

func hostPort(a netip.Addr, port uint16) string { return netip.AddrPortFrom(a, port).String() }
