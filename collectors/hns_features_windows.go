//go:build windows

package collectors

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/Microsoft/hcsshim/hcn"
)

// GetFeatures asks hcsshim what the components that link it see: the HNS
// version (hcn.GetGlobals) and the features it gates on it
// (hcn.GetCachedSupportedFeatures, as kube-proxy asks: DSR, IPv6DualStack,
// ModifyLoadbalancer...). Both are queries; a test reads this file and
// holds it to these two.
func (rawHNS) GetFeatures(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, err := hcn.GetGlobals()
	if err != nil {
		return nil, fmt.Errorf("hcn.GetGlobals: %w", err)
	}
	f, err := hcn.GetCachedSupportedFeatures()
	if err != nil {
		return nil, fmt.Errorf("hcn.GetCachedSupportedFeatures: %w", err)
	}
	return json.MarshalIndent(struct {
		Source   string                `json:"source"`
		Version  hcn.Version           `json:"version"`
		Features hcn.SupportedFeatures `json:"features"`
	}{hcsshimSource(), g.Version, f}, "", "  ")
}

// hcsshimSource names the hcsshim diag was built with: its version tables
// are the ones the features come from.
func hcsshimSource() string {
	v := "unknown version"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/Microsoft/hcsshim" {
				v = d.Version
			}
		}
	}
	return "github.com/Microsoft/hcsshim " + v + " hcn.GetCachedSupportedFeatures"
}
