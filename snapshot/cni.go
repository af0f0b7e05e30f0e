package snapshot

import (
	"strings"
)

// CNIConfig is one file of the node's CNI configuration directory. The
// runtime (containerd) uses the lexicographically first file, so order
// matters; rules read the fields below and never the raw JSON.
type CNIConfig struct {
	File string `json:"file"`
	Name string `json:"name,omitempty"` // the CNI network name ("name")
	// Plugins are the plugin types in the order they run, delegates
	// included: flannel → win-overlay, calico, sdnbridge, nat.
	Plugins []string `json:"plugins,omitempty"`
	// Exceptions are every OutBoundNAT ExceptionList entry of the file (V1
	// "ExceptionList" or V2 "Settings.Exceptions"), as written.
	Exceptions  []string `json:"exceptions,omitempty"`
	Nameservers []string `json:"nameservers,omitempty"`
	// Invalid says why the file could not be read as JSON; the runtime
	// cannot read it either.
	Invalid string `json:"invalid,omitempty"`
}

// FlannelNetConf is flannel's net-conf.json.
type FlannelNetConf struct {
	File        string `json:"file"`
	Network     string `json:"network,omitempty"`
	BackendType string `json:"backendType,omitempty"`
	BackendName string `json:"backendName,omitempty"` // Windows: the HNS network name (vxlan0, cbr0)
	Port        int    `json:"port,omitempty"`        // 0 when not set (defaults differ per OS)
	VNI         int    `json:"vni,omitempty"`
	// Settings flannel refuses on Windows.
	DirectRouting bool   `json:"directRouting,omitempty"`
	GBP           bool   `json:"gbp,omitempty"`
	MacPrefix     string `json:"macPrefix,omitempty"`
}

// IsNAT reports whether the configuration attaches pods to the Windows
// "nat" network (containerd's default 0-containerd-nat.json).
func (c *CNIConfig) IsNAT() bool {
	return len(c.Plugins) > 0 && strings.EqualFold(c.Plugins[0], "nat")
}
