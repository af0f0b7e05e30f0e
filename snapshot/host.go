package snapshot

import (
	"net/netip"
	"strings"
)

// The host/*.json files are written by diag's collector from PowerShell's
// ConvertTo-Json of Get-NetAdapter/Get-NetIPAddress/Get-NetRoute, so both
// the collector's names and PowerShell's are accepted.

// ParseAdapters parses host/adapters.json.
func ParseAdapters(data []byte) ([]*HostAdapter, error) {
	return parseEach(data, func(o obj, _ int) *HostAdapter {
		a := &HostAdapter{
			Name:        o.str("Name", "InterfaceAlias"),
			Description: o.str("InterfaceDescription", "Description"),
			MAC:         NormalizeMAC(o.str("MacAddress")),
			Status:      o.str("Status"),
		}
		a.IfIndex, _ = o.num("ifIndex", "InterfaceIndex")
		a.MTU, _ = o.num("MtuSize", "MTU", "NlMtu")
		for _, ip := range o.list("IPAddresses", "Addresses") {
			addr := parseAddr(ip.str("IPAddress", "Address"))
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
			if addr := parseAddr(g); addr.IsValid() {
				a.Gateways = append(a.Gateways, addr)
			}
		}
		return a
	})
}

// ParseRoutes parses host/routes.json.
func ParseRoutes(data []byte) ([]*HostRoute, error) {
	return parseEach(data, func(o obj, _ int) *HostRoute {
		r := &HostRoute{
			Destination: parsePrefix(o.str("DestinationPrefix", "Destination")),
			NextHop:     parseAddr(o.str("NextHop")),
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
func ParseOS(data []byte) (*OSInfo, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	info := &OSInfo{
		Hostname:     o.str("Hostname", "CSName", "ComputerName"),
		HostnameFrom: FileOS + " hostname",
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

// AdapterWithAddr returns the adapter holding address a, if any.
func (s *Snapshot) AdapterWithAddr(a netip.Addr) *HostAdapter {
	for _, ad := range s.Adapters {
		for _, p := range ad.Addresses {
			if p.Addr() == a {
				return ad
			}
		}
	}
	return nil
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
