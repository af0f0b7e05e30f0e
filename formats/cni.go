package formats

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// ParseCNIConfig reads a .conf, .conflist or .json CNI file. A file that is
// not JSON is kept with Invalid set rather than failing the whole bundle.
func ParseCNIConfig(data []byte, file string) *snapshot.CNIConfig {
	c := &snapshot.CNIConfig{File: file}
	text, err := DecodeText(data)
	if err != nil {
		c.Invalid = err.Error()
		return c
	}
	var root map[string]any
	if err := json.Unmarshal(text, &root); err != nil {
		c.Invalid = fmt.Sprintf("not a JSON object: %v", err)
		return c
	}
	c.Name, _ = root["name"].(string)
	if list, ok := root["plugins"].([]any); ok { // .conflist
		for _, p := range list {
			if m, ok := p.(map[string]any); ok {
				addPlugin(c, m)
			}
		}
	} else {
		addPlugin(c, root)
	}
	collectCNIPolicies(root, c, 0)
	return c
}

func addPlugin(c *snapshot.CNIConfig, m map[string]any) {
	if t, ok := m["type"].(string); ok && t != "" {
		c.Plugins = append(c.Plugins, t)
	}
	if d, ok := m["delegate"].(map[string]any); ok {
		addPlugin(c, d)
	}
}

// collectCNIPolicies walks the tree for OutBoundNAT exception lists and DNS
// nameservers: win-overlay, win-bridge, sdnbridge, Calico and Antrea put them
// at different depths (policies[].Value, delegate.policies, AdditionalArgs).
func collectCNIPolicies(v any, c *snapshot.CNIConfig, depth int) {
	if depth > 32 {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			switch {
			case strings.EqualFold(k, "ExceptionList") || strings.EqualFold(k, "Exceptions"):
				c.Exceptions = append(c.Exceptions, stringsOf(child)...)
			case strings.EqualFold(k, "Nameservers"):
				c.Nameservers = append(c.Nameservers, stringsOf(child)...)
			default:
				collectCNIPolicies(child, c, depth+1)
			}
		}
	case []any:
		for _, child := range t {
			collectCNIPolicies(child, c, depth+1)
		}
	}
}

// ParseFlannelNetConf reads net-conf.json.
func ParseFlannelNetConf(data []byte, file string) (*snapshot.FlannelNetConf, error) {
	text, err := DecodeText(data)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Network string
		Backend struct {
			Type          string
			Name          string
			Port          json.Number
			VNI           json.Number
			DirectRouting bool
			GBP           bool
			MacPrefix     string
		}
	}
	if err := json.Unmarshal(text, &raw); err != nil {
		return nil, fmt.Errorf("not flannel's net-conf.json: %w", err)
	}
	n := &snapshot.FlannelNetConf{File: file, Network: raw.Network, BackendType: raw.Backend.Type, BackendName: raw.Backend.Name,
		DirectRouting: raw.Backend.DirectRouting, GBP: raw.Backend.GBP, MacPrefix: raw.Backend.MacPrefix}
	if p, err := raw.Backend.Port.Int64(); err == nil && p > 0 && p < 1<<16 {
		n.Port = int(p)
	}
	if v, err := raw.Backend.VNI.Int64(); err == nil && v > 0 && v < 1<<24 {
		n.VNI = int(v)
	}
	return n, nil
}

// isCNIConfigFile: the extensions libcni loads.
func isCNIConfigFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".conf", ".conflist", ".json":
		return true
	}
	return false
}

// loadCNIFiles reads config/cni/* in the order the runtime would see them.
func loadCNIFiles(l *loader, names []string) {
	var files []string
	for _, n := range names {
		if isCNIConfigFile(n) {
			files = append(files, n)
		}
	}
	sort.Slice(files, func(i, j int) bool { return path.Base(files[i]) < path.Base(files[j]) })
	for _, f := range files {
		data, ok := l.read(f)
		if !ok {
			continue
		}
		c := ParseCNIConfig(data, f)
		if c.Invalid != "" {
			l.s.Notes = append(l.s.Notes, fmt.Sprintf("%s: %s", f, c.Invalid))
		}
		l.s.CNIConfigs = append(l.s.CNIConfigs, c)
		if _, seen := l.s.Inputs[snapshot.InputCNIConfig]; !seen {
			l.s.Inputs[snapshot.InputCNIConfig] = f
		}
	}
}
