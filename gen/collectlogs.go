package gen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// BusyNode sizes a collectlogs output.
type BusyNode struct {
	Endpoints     int // HNS endpoints, a third local pods, the rest remote
	VFPPorts      int // VFP ports with rule dumps
	RulesPerPort  int
	RemoteSubnets int // RemoteSubnetRoutes (peer nodes)
	UTF16         bool
}

// DefaultBusyNode is the size the formats issue names: 300 endpoints, 100
// VFP ports with 40 rules each, in a 50-node cluster.
var DefaultBusyNode = BusyNode{Endpoints: 300, VFPPorts: 100, RulesPerPort: 40, RemoteSubnets: 49, UTF16: true}

func guid(kind, i int) string {
	return fmt.Sprintf("%08X-%04X-4%03X-8%03X-%012X", 0x1000000*kind+i, kind, i%0x1000, (i/0x1000)%0x1000, i)
}

func mac(prefix string, i int) string {
	return fmt.Sprintf("%s-%02X-%02X-%02X-%02X", prefix, 10, 244, (i/256)%256, i%256)
}

// WriteCollectlogs writes the collectlogs files of a busy flannel node into dir.
func WriteCollectlogs(dir string, n BusyNode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name, text string) error {
		data := []byte(text)
		if n.UTF16 {
			text = strings.ReplaceAll(text, "\n", "\r\n")
			u := utf16.Encode([]rune(text))
			data = make([]byte, 2+2*len(u))
			data[0], data[1] = 0xFF, 0xFE
			for i, c := range u {
				data[2+2*i], data[3+2*i] = byte(c), byte(c>>8)
			}
		}
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}

	netID := guid(1, 1)
	policies := []any{
		map[string]any{"Type": "ProviderAddress", "Settings": map[string]any{"ProviderAddress": "192.168.0.21"}},
		map[string]any{"Type": "DrMacAddress", "Settings": map[string]any{"Address": "00-15-5D-00-00-21"}},
		map[string]any{"Type": "HostRoute", "Settings": map[string]any{}},
	}
	for i := 0; i < n.RemoteSubnets; i++ {
		peer := i + 2
		if peer >= 21 {
			peer++ // skip our own subnet 10.244.21.0/24
		}
		policies = append(policies, map[string]any{"Type": "RemoteSubnetRoute", "Settings": map[string]any{
			"DestinationPrefix": fmt.Sprintf("10.244.%d.0/24", peer), "IsolationId": 4096,
			"ProviderAddress": fmt.Sprintf("192.168.0.%d", peer), "DistributedRouterMacAddress": fmt.Sprintf("0e:2a:c0:a8:00:%02x", peer)}})
	}
	network := map[string]any{"ID": netID, "Name": "flannel.4096", "Type": "Overlay", "Flags": 8, "Policies": policies,
		"Ipams": []any{map[string]any{"Type": "Static", "Subnets": []any{map[string]any{"IpAddressPrefix": "10.244.21.0/24",
			"Policies": []any{map[string]any{"Type": "VSID", "Settings": map[string]any{"IsolationId": 4096}}},
			"Routes":   []any{map[string]any{"NextHop": "10.244.21.1", "DestinationPrefix": "0.0.0.0/0"}}}}}}}
	js, _ := json.MarshalIndent([]any{network}, "", "    ")
	if err := write("network.txt", "\nName         Type    Id\n----         ----    --\nflannel.4096 Overlay "+netID+"\n\n"+string(js)+"\n"); err != nil {
		return err
	}

	var eps []any
	var table strings.Builder
	table.WriteString("\nIpAddress     MacAddress        IsRemoteEndpoint State\n---------     ----------        ---------------- -----\n")
	local := n.Endpoints / 3
	for i := 0; i < n.Endpoints; i++ {
		e := map[string]any{"ID": guid(2, i), "HostComputeNetwork": netID, "SchemaVersion": map[string]any{"Major": 2, "Minor": 0}}
		if i < local {
			ip := fmt.Sprintf("10.244.21.%d", 3+i%250)
			e["Name"] = fmt.Sprintf("%064x_flannel.4096", i)
			e["IpConfigurations"] = []any{map[string]any{"IpAddress": ip, "PrefixLength": 24}}
			e["MacAddress"] = mac("0E-2A", i)
			e["Policies"] = []any{
				map[string]any{"Type": "OutBoundNAT", "Settings": map[string]any{"Exceptions": []string{"10.244.0.0/16", "10.96.0.0/12", "192.168.0.0/24"}}},
				map[string]any{"Type": "SDNRoute", "Settings": map[string]any{"DestinationPrefix": "10.96.0.0/12", "NeedEncap": true}},
				map[string]any{"Type": "ProviderAddress", "Settings": map[string]any{"ProviderAddress": "192.168.0.21"}},
			}
			fmt.Fprintf(&table, "%-13s %s                      3\n", ip, mac("0E-2A", i))
		} else {
			peer := 2 + (i-local)%max(n.RemoteSubnets, 1)
			if peer >= 21 {
				peer++
			}
			ip := fmt.Sprintf("10.244.%d.%d", peer, 2+(i-local)/max(n.RemoteSubnets, 1))
			e["Name"] = "remote_" + ip
			e["IpConfigurations"] = []any{map[string]any{"IpAddress": ip}}
			e["MacAddress"] = mac("02-11", i)
			e["Flags"] = 1
			e["Policies"] = []any{map[string]any{"Type": "ProviderAddress", "Settings": map[string]any{"ProviderAddress": fmt.Sprintf("192.168.0.%d", peer)}}}
			fmt.Fprintf(&table, "%-13s %s             True     1\n", ip, mac("02-11", i))
		}
		eps = append(eps, e)
	}
	js, _ = json.MarshalIndent(eps, "", "    ")
	if err := write("endpoint.txt", table.String()+"\n"+string(js)+"\n"); err != nil {
		return err
	}

	var ports, vfp strings.Builder
	ports.WriteString("\nITEM LIST\n===========\n\n")
	vfp.WriteString("\nPort name                            Mac Address       PortId\n---------                            -----------       ------\n")
	for p := 0; p < n.VFPPorts; p++ {
		fmt.Fprintf(&ports, "  Port name              : %s\n  Port Friendly name     : Container NIC %08x\n  Switch name            : %s\n"+
			"  Switch Friendly name   : flannel.4096\n  PortId                 : %d\n  MAC address            : %s\n  Port is Enabled.\n\n",
			guid(3, p), p, guid(4, 0), p+3, mac("0E-2A", p))
		fmt.Fprintf(&vfp, "%s %s %d\n", guid(3, p), mac("0E-2A", p), p+3)
	}
	ports.WriteString("Command list-vmswitch-port succeeded!\n")
	vfp.WriteString("\n")
	for p := 0; p < n.VFPPorts; p++ {
		fmt.Fprintf(&vfp, "Policy for port : \n%s\nITEM LIST\n===========\n\n", guid(3, p))
		layers := []string{"VNET_ENCAP_LAYER", "SLB_NAT_LAYER", "SLB_LB_LAYER", "FW_ADMIN_LAYER"}
		for l, layer := range layers {
			fmt.Fprintf(&vfp, "    LAYER : %s\n        Friendly name : %s\n        Flags : 0x1 Default Allow\n        Priority : %d\n\n", layer, layer, 100*(l+1))
			fmt.Fprintf(&vfp, "        GROUP : %s_GROUP_OUT\n            Friendly name : %s_GROUP_OUT\n            Priority : 100\n            Direction : OUT\n            Type : IPv4\n\n", layer, layer)
			for r := 0; r < n.RulesPerPort/len(layers); r++ {
				fmt.Fprintf(&vfp, "            RULE : \n                Friendly name : %s_RULE_%d\n                Priority : %d\n                Flags : 1 terminating\n"+
					"                Type : encap\n                Conditions:\n                    Destination IP : 10.244.%d.0-10.244.%d.255\n"+
					"                Flow TTL: 0\n                Encap Destination(s):\n                    { DIP=192.168.0.%d, VSID=4096 }\n"+
					"                FlagsEx : 0\n                Matched packets : %d\n                Dropped packets : 0\n\n",
					layer, r, 100+r, r%250, r%250, 2+r%250, r*17)
			}
		}
		vfp.WriteString("Command get-rule-counter succeeded!\n\nITEM LIST\n===========\n\n  Port State\n    Enabled : TRUE\n    Blocked : FALSE\n\nCommand get-port-state succeeded!\n")
	}
	for name, text := range map[string]string{"ports.txt": ports.String(), "vfpOutput.txt": vfp.String(),
		"policy.txt": "[]\n", "winver.txt": "Microsoft Windows NT 10.0.20348.0\n",
		"ip.txt": "\nWindows IP Configuration\n\n   Host Name . . . . . . . . . . . . : busy-1\n\nEthernet adapter vEthernet (Ethernet):\n\n" +
			"   Physical Address. . . . . . . . . : 00-15-5D-00-00-21\n   IPv4 Address. . . . . . . . . . . : 192.168.0.21(Preferred)\n" +
			"   Subnet Mask . . . . . . . . . . . : 255.255.255.0\n   Default Gateway . . . . . . . . . : 192.168.0.1\n"} {
		if err := write(name, text); err != nil {
			return err
		}
	}
	return nil
}
