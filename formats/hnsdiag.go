package formats

import (
	"strings"

	"github.com/wincni/diag/snapshot"
)

var (
	guidIn        = lazyRegexp(snapshot.GUIDPattern)
	hnsdiagHeader = lazyRegexp(`^(Networks|Endpoints|Namespaces|LoadBalancers|Load Balancers)\s*:\s*$`)
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
	curIndent := 0
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		t := strings.TrimSpace(raw)
		if t == "" || len(t) > maxConsoleLine {
			continue
		}
		if m := hnsdiagHeader().FindStringSubmatch(t); m != nil {
			kind = strings.ToLower(strings.TrimSuffix(strings.ReplaceAll(m[1], " ", ""), "s"))
			cur = nil
			continue
		}
		k, v, isKV := splitKV(t)
		if isKV && guidIn().MatchString(v) && (hnsdiagKind(k) || indentOf(raw) == 0) && (cur == nil || indentOf(raw) <= curIndent) {
			// "Endpoint : <guid>" opens a block, at whatever indentation
			// the paste has (a Markdown list indents it); its fields are
			// indented further.
			objects = append(objects, snapshot.HNSDiagObject{Kind: strings.ToLower(strings.ReplaceAll(k, " ", "")), ID: snapshot.NormalizeGUID(guidIn().FindString(v))})
			cur, curIndent = &objects[len(objects)-1], indentOf(raw)
			continue
		}
		if isKV && cur != nil && indentOf(raw) > curIndent {
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
		loc := guidIn().FindStringIndex(t)
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

// hnsdiagKind: a key that opens an object's block in hnsdiag list's
// newer layout.
func hnsdiagKind(k string) bool {
	switch strings.ToLower(strings.ReplaceAll(k, " ", "")) {
	case "network", "endpoint", "namespace", "loadbalancer":
		return true
	}
	return false
}

// hnsdiagBlocks: text whose layout alone is hnsdiag list's: object blocks
// opened by "Load Balancer : <GUID>" (Endpoint, Network, Namespace), each
// with its fields indented below.
func hnsdiagBlocks(objects []snapshot.HNSDiagObject, text string) bool {
	if len(objects) == 0 {
		return false
	}
	for _, o := range objects {
		if !hnsdiagKind(o.Kind) {
			return false
		}
	}
	return hnsdiagField().MatchString(text)
}

// hnsdiagField is a field line of an object block.
var hnsdiagField = lazyRegexp(`(?mi)^\s+(Virtual IPs|Direct IP IDs|Name|IP Address|Virtual Network( Name)?|Endpoint IDs|Mac Address)\s*:`)
