package formats

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/wincni/diag/snapshot"
)

var (
	ipconfigKey     = lazyRegexp(`^\s{2,}([^.:]+?)[ .]*:\s?(.*)$`)
	ipconfigAdapter = lazyRegexp(`^\S.*?(?:adapter|Adapter|-Adapter)\s+(.+):\s*$`)
	ipconfigCompart = lazyRegexp(`Compartment\s+(\d+)`)
	ipv4InText      = lazyRegexp(`\b(\d{1,3}(?:\.\d{1,3}){3})\b`)
)

// maxConsoleLine: console tools print short lines; longer ones are noise
// and are skipped before any regular expression sees them.
const maxConsoleLine = 4096

// ipconfig keys, English and German (the most common non-English nodes).
func ipconfigField(key string) string {
	k := strings.ToLower(key)
	switch {
	case strings.HasPrefix(k, "host name") || strings.HasPrefix(k, "hostname"):
		return "host"
	case strings.HasPrefix(k, "description") || strings.HasPrefix(k, "beschreibung"):
		return "description"
	case strings.HasPrefix(k, "physical address") || strings.HasPrefix(k, "physische adresse"):
		return "mac"
	case strings.HasPrefix(k, "ipv4 address") || strings.HasPrefix(k, "ipv4-adresse") || strings.HasPrefix(k, "autoconfiguration ipv4"):
		return "ipv4"
	case strings.HasPrefix(k, "subnet mask") || strings.HasPrefix(k, "subnetzmaske"):
		return "mask"
	case strings.HasPrefix(k, "default gateway") || strings.HasPrefix(k, "standardgateway"):
		return "gateway"
	case strings.HasPrefix(k, "media state") || strings.HasPrefix(k, "medienstatus"):
		return "media"
	}
	return ""
}

// ParseIPConfig parses `ipconfig /all` (or /allcompartments /all) into host
// adapters of compartment 1 (the host) and the host name.
func ParseIPConfig(text string) (adapters []*snapshot.HostAdapter, hostname string) {
	compartment := 1
	var cur *snapshot.HostAdapter
	var pendingIP netip.Addr
	lastField := ""
	flushIP := func(bits int) {
		if cur != nil && pendingIP.IsValid() {
			cur.Addresses = append(cur.Addresses, netip.PrefixFrom(pendingIP, bits))
		}
		pendingIP = netip.Addr{}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r ")
		if len(line) > maxConsoleLine {
			continue
		}
		if m := ipconfigCompart().FindStringSubmatch(line); m != nil && strings.Contains(line, "Compartment") && !strings.HasPrefix(line, " ") {
			flushIP(32)
			compartment, _ = strconv.Atoi(m[1])
			cur = nil
			continue
		}
		if m := ipconfigAdapter().FindStringSubmatch(line); m != nil {
			flushIP(32)
			cur = nil
			if compartment == 1 {
				cur = &snapshot.HostAdapter{Name: strings.TrimSpace(m[1]), Status: "Up"}
				adapters = append(adapters, cur)
			}
			lastField = ""
			continue
		}
		m := ipconfigKey().FindStringSubmatch(line)
		if m == nil {
			// A continuation value (a second gateway or DNS server).
			if v := strings.TrimSpace(line); v != "" && lastField == "gateway" && cur != nil {
				if a := snapshot.ParseAddr(v); a.Is4() {
					cur.Gateways = append(cur.Gateways, a)
				}
			}
			continue
		}
		field, value := ipconfigField(m[1]), strings.TrimSpace(m[2])
		if field == "" {
			lastField = ""
			continue
		}
		lastField = field
		if field == "host" {
			if hostname == "" {
				hostname = value
			}
			continue
		}
		if cur == nil {
			continue
		}
		switch field {
		case "description":
			cur.Description = value
		case "mac":
			cur.MAC = snapshot.NormalizeMAC(value)
		case "ipv4":
			flushIP(32)
			if ip := ipv4InText().FindString(value); ip != "" {
				pendingIP = snapshot.ParseAddr(ip)
			}
		case "mask":
			bits := 32
			if mask := snapshot.ParseAddr(value); mask.Is4() {
				bits = maskBits(mask)
			}
			flushIP(bits)
		case "gateway":
			if a := snapshot.ParseAddr(value); a.Is4() {
				cur.Gateways = append(cur.Gateways, a)
			}
		case "media":
			if strings.Contains(strings.ToLower(value), "disconnected") || strings.Contains(strings.ToLower(value), "getrennt") {
				cur.Status = "Disconnected"
			}
		}
	}
	flushIP(32)
	return adapters, hostname
}

func maskBits(mask netip.Addr) int {
	if !mask.Is4() {
		return 32
	}
	b := mask.As4()
	bits := 0
	for _, x := range b {
		for i := 7; i >= 0; i-- {
			if x&(1<<i) == 0 {
				return bits
			}
			bits++
		}
	}
	return bits
}

var routeRow = lazyRegexp(`^\s*(\d{1,3}(?:\.\d{1,3}){3})\s+(\d{1,3}(?:\.\d{1,3}){3})\s+(\S+)\s+(\d{1,3}(?:\.\d{1,3}){3})\s+(\d+)\s*$`)

// ParseRoutePrint parses the IPv4 active routes of `route print`. The
// interface column is a local address; adapters resolve it to a name.
func ParseRoutePrint(text string, adapters []*snapshot.HostAdapter) []*snapshot.HostRoute {
	var out []*snapshot.HostRoute
	inActive := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r ")
		if len(line) > maxConsoleLine {
			continue
		}
		switch {
		case strings.HasPrefix(line, "Active Routes:"):
			inActive = true
			continue
		case strings.HasPrefix(line, "Persistent Routes:") || strings.HasPrefix(line, "IPv6 Route Table"):
			inActive = false
			continue
		}
		if !inActive {
			continue
		}
		m := routeRow().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		dest, mask := snapshot.ParseAddr(m[1]), snapshot.ParseAddr(m[2])
		if !dest.Is4() || !mask.Is4() {
			continue // "010.0.0.1": leading zeros are not an address
		}
		r := &snapshot.HostRoute{Destination: netip.PrefixFrom(dest, maskBits(mask)).Masked()}
		if gw := snapshot.ParseAddr(m[3]); gw.IsValid() {
			r.NextHop = gw
		}
		r.Metric, _ = strconv.ParseInt(m[5], 10, 64)
		r.Interface = m[4]
		resolveRouteInterface(r, adapters)
		out = append(out, r)
	}
	return out
}

// resolveRouteInterface names a route's interface by the adapter that holds
// the local address route print shows in its Interface column.
func resolveRouteInterface(r *snapshot.HostRoute, adapters []*snapshot.HostAdapter) {
	local := snapshot.ParseAddr(r.Interface)
	if !local.IsValid() {
		return
	}
	for _, a := range adapters {
		for _, p := range a.Addresses {
			if p.Addr() == local {
				r.Interface, r.IfIndex = a.Name, a.IfIndex
				return
			}
		}
	}
}

var routeInterfaceRow = lazyRegexp(`^\s*(\d+)\.\.\.((?:[0-9a-fA-F]{2} ){5}[0-9a-fA-F]{2})\s*\.+(.+)$`)

// ApplyRouteInterfaceList reads route print's Interface List (ifIndex, MAC,
// description) into the adapters with that MAC and description.
func ApplyRouteInterfaceList(text string, adapters []*snapshot.HostAdapter) {
	for _, line := range strings.Split(text, "\n") {
		if len(line) > maxConsoleLine {
			continue
		}
		m := routeInterfaceRow().FindStringSubmatch(strings.TrimRight(line, "\r "))
		if m == nil {
			continue
		}
		mac := snapshot.NormalizeMAC(strings.ReplaceAll(m[2], " ", ""))
		for _, a := range adapters {
			if a.MAC == mac && a.IfIndex == 0 && strings.HasPrefix(a.Description, strings.TrimSpace(m[3])) {
				a.IfIndex, _ = strconv.ParseInt(m[1], 10, 64)
			}
		}
	}
}

var netshInterfaceRow = lazyRegexp(`^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$`)

// ApplyNetshInterfaces reads `netsh int ipv4 show interfaces` (Idx, Met,
// MTU, State, Name) into the adapters with the same name.
func ApplyNetshInterfaces(text string, adapters []*snapshot.HostAdapter) {
	for _, line := range strings.Split(text, "\n") {
		if len(line) > maxConsoleLine {
			continue
		}
		m := netshInterfaceRow().FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		for _, a := range adapters {
			if strings.EqualFold(a.Name, m[5]) {
				a.IfIndex, _ = strconv.ParseInt(m[1], 10, 64)
				a.MTU, _ = strconv.ParseInt(m[3], 10, 64)
			}
		}
	}
}

var (
	osVersionLine = lazyRegexp(`Microsoft Windows NT (\d+)\.(\d+)\.(\d+)(?:\.(\d+))?`)
	hotfixID      = lazyRegexp(`\bKB\d{6,7}\b`)
)

// ParseWinver reads [Environment]::OSVersion followed by Get-HotFix's table.
func ParseWinver(text string) *snapshot.OSInfo {
	m := osVersionLine().FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	info := &snapshot.OSInfo{Version: strings.TrimPrefix(m[0], "Microsoft Windows NT ")}
	info.Build, _ = strconv.ParseInt(m[3], 10, 64)
	if m[4] != "" && m[4] != "0" {
		info.UBR, _ = strconv.ParseInt(m[4], 10, 64)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if len(line) > maxConsoleLine {
			continue
		}
		id := hotfixID().FindString(line)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		info.Hotfixes = append(info.Hotfixes, id)
		if f := strings.Fields(line); info.Hostname == "" && len(f) > 2 && f[2] == id {
			info.Hostname, info.HostnameFrom = f[0], "Get-HotFix Source column" // Get-HotFix's Source column
		}
	}
	return info
}
