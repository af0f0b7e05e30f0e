package formats

import (
	"regexp"
	"strings"

	"github.com/wincni/diag/snapshot"
)

var (
	guidIn        = regexp.MustCompile(`[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}`)
	hnsdiagHeader = regexp.MustCompile(`^(Networks|Endpoints|Namespaces|LoadBalancers|Load Balancers)\s*:\s*$`)
)

// ParseHNSDiag reads `hnsdiag list all` in both layouts: the old table
// (Name, ID, Virtual Network Name columns) and the newer blocks
// ("Endpoint : <guid>" and indented "Name : ..."). Usage text (builds where
// the verb does not exist) gives supported=false.
func ParseHNSDiag(text string) (objects []snapshot.HNSDiagObject, supported bool) {
	if strings.Contains(text, "Usage:") && strings.Contains(text, "hnsdiag <command>") {
		return nil, false
	}
	kind := ""
	var cur *snapshot.HNSDiagObject
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		t := strings.TrimSpace(raw)
		if t == "" || len(t) > maxConsoleLine {
			continue
		}
		if m := hnsdiagHeader.FindStringSubmatch(t); m != nil {
			kind = strings.ToLower(strings.TrimSuffix(strings.ReplaceAll(m[1], " ", ""), "s"))
			cur = nil
			continue
		}
		k, v, isKV := splitKV(t)
		if isKV && indentOf(raw) == 0 && guidIn.MatchString(v) {
			// "Endpoint : <guid>" opens a block.
			objects = append(objects, snapshot.HNSDiagObject{Kind: strings.ToLower(strings.ReplaceAll(k, " ", "")), ID: snapshot.NormalizeGUID(guidIn.FindString(v))})
			cur = &objects[len(objects)-1]
			continue
		}
		if isKV && cur != nil && indentOf(raw) > 0 {
			switch strings.ToLower(k) {
			case "name":
				cur.Name = v
			case "ip address", "ipaddress":
				cur.IP = v
			case "virtual network", "virtual network name", "network":
				cur.Network = v
			}
			continue
		}
		if kind == "" {
			continue
		}
		// Old table row: name, GUID, then the network name (endpoints) or
		// "| endpoint IDs" (namespaces).
		loc := guidIn.FindStringIndex(t)
		if loc == nil {
			continue
		}
		o := snapshot.HNSDiagObject{Kind: kind, ID: snapshot.NormalizeGUID(t[loc[0]:loc[1]])}
		if kind != "namespace" {
			o.Name = strings.TrimSpace(t[:loc[0]])
			o.Network = strings.TrimSpace(t[loc[1]:])
		}
		objects = append(objects, o)
		cur = nil
	}
	return objects, true
}
