package formats

import (
	"net/netip"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// ParseAdapters parses host/adapters.json.
func ParseAdapters(data []byte) ([]*snapshot.HostAdapter, error) {
	return parseEach(data, func(o obj, _ int) *snapshot.HostAdapter {
		a := &snapshot.HostAdapter{
			Name:        o.str("Name", "InterfaceAlias"),
			Description: o.str("InterfaceDescription", "Description"),
			MAC:         snapshot.NormalizeMAC(o.str("MacAddress")),
			Status:      o.str("Status"),
		}
		a.IfIndex, _ = o.num("ifIndex", "InterfaceIndex")
		a.MTU, _ = o.num("MtuSize", "MTU", "NlMtu")
		for _, ip := range o.list("IPAddresses", "Addresses") {
			addr := snapshot.ParseAddr(ip.str("IPAddress", "Address"))
			if !addr.IsValid() {
				continue
			}
			bits, ok := ip.num("PrefixLength")
			if !ok || bits < 0 || int(bits) > addr.BitLen() {
				bits = int64(addr.BitLen())
			}
			a.Addresses = append(a.Addresses, netip.PrefixFrom(addr, int(bits)))
		}
		for _, g := range o.strs("Gateways", "DefaultGateway") {
			if addr := snapshot.ParseAddr(g); addr.IsValid() {
				a.Gateways = append(a.Gateways, addr)
			}
		}
		return a
	})
}

// ParseRoutes parses host/routes.json.
func ParseRoutes(data []byte) ([]*snapshot.HostRoute, error) {
	return parseEach(data, func(o obj, _ int) *snapshot.HostRoute {
		r := &snapshot.HostRoute{
			Destination: snapshot.ParsePrefix(o.str("DestinationPrefix", "Destination")),
			NextHop:     snapshot.ParseAddr(o.str("NextHop")),
			Interface:   o.str("InterfaceAlias", "Interface"),
		}
		r.IfIndex, _ = o.num("ifIndex", "InterfaceIndex")
		r.Metric, _ = o.num("RouteMetric", "Metric")
		if r.Destination.IsValid() {
			return r
		}
		return nil
	})
}

// ParseOS parses host/os.json.
func ParseOS(data []byte) (*snapshot.OSInfo, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	info := &snapshot.OSInfo{
		Hostname:     o.str("Hostname", "CSName", "ComputerName"),
		HostnameFrom: snapshot.FileOS + " hostname",
		ProductName:  o.str("ProductName", "Caption"),
		Version:      o.str("DisplayVersion", "Version"),
	}
	info.Build, _ = o.num("CurrentBuild", "CurrentBuildNumber", "BuildNumber")
	info.UBR, _ = o.num("UBR")
	for _, h := range o.list("Hotfixes", "HotFixes") {
		if id := h.str("HotFixID", "Id"); id != "" {
			info.Hotfixes = append(info.Hotfixes, strings.ToUpper(id))
		}
	}
	if len(info.Hotfixes) == 0 {
		for _, id := range o.strs("Hotfixes") {
			info.Hotfixes = append(info.Hotfixes, strings.ToUpper(id))
		}
	}
	return info, nil
}

// firstObject parses a document that describes one thing (host/os.json,
// host/firewall.json, host/portranges.json): its first object, or nil when
// it has none.
func firstObject(data []byte) (obj, error) {
	v, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if objs := objects(v); len(objs) > 0 {
		return objs[0], nil
	}
	return nil, nil
}
