package formats

import (
	"strings"
	"unicode"

	"github.com/wincni/diag/snapshot"
)

// ParseKubeProxyCmdline parses kube-proxy's command line as the process or
// the Windows service has it: `--flag=value` and `--flag value`, double
// quotes around values with spaces.
func ParseKubeProxyCmdline(data []byte, file string) (*snapshot.KubeProxyConfig, error) {
	text, err := DecodeText(data)
	if err != nil {
		return nil, err
	}
	args := splitCmdline(string(text))
	cfg := &snapshot.KubeProxyConfig{Source: file, Flags: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name := strings.TrimLeft(a, "-")
		value := "true"
		if k, v, found := strings.Cut(name, "="); found {
			name, value = k, v
		} else if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !boolFlags[name] {
			value = args[i+1]
			i++
		}
		cfg.Flags[name] = value
	}
	cfg.NetworkName = cfg.Flags["network-name"]
	cfg.SourceVIP = cfg.Flags["source-vip"]
	cfg.ClusterCIDR = cfg.Flags["cluster-cidr"]
	cfg.Hostname = cfg.Flags["hostname-override"]
	cfg.EnableDSR = strings.EqualFold(cfg.Flags["enable-dsr"], "true")
	return cfg, nil
}

// boolFlags are kube-proxy flags that take no separate value.
var boolFlags = map[string]bool{"enable-dsr": true, "windows-service": true, "masquerade-all": true, "cleanup": true}

// splitCmdline splits a command line on unquoted whitespace; quotes group.
func splitCmdline(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			have = true
		case unicode.IsSpace(r) && !inQuote:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}
