package gen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ClusterNode sizes the bundle of one Windows node in an N-node flannel
// VXLAN cluster (the scale the rule-catalog issue names): N-1
// RemoteSubnetRoutes, LocalPods local and 20·N remote endpoints, 5·N load
// balancers with up to 50 backends, N Kubernetes Nodes and 5·N Services.
type ClusterNode struct {
	Nodes     int // cluster size N
	Index     int // which node this bundle is, 0 ≤ Index < Nodes
	LocalPods int // 100 when zero
	// VFPPorts is how many local endpoints get a vfpctrl dump (vfp/): their
	// encap rule for every RemoteSubnetRoute, outbound NAT and port state.
	// Zero writes none (the scale benchmarks decode HNS JSON only).
	VFPPorts int
}

// Node i owns pod subnet 10.<i/256+1>.<i%256>.0/24... spread over 10.64.0.0/10
// so that 1,000+ nodes fit, and underlay address 172.16.<i/250>.<i%250+1>.
func podSubnet(i int) (string, string) {
	a, b := 64+i/256, i%256
	return fmt.Sprintf("10.%d.%d.0/24", a, b), fmt.Sprintf("10.%d.%d.", a, b)
}

func underlayIP(i int) string { return fmt.Sprintf("172.16.%d.%d", i/250, i%250+1) }

func nodeName(i int) string { return fmt.Sprintf("node-%04d", i) }

// WriteClusterNode writes the bundle directory of one node; it is a
// healthy node, so analysis of it should report nothing.
func WriteClusterNode(dir string, c ClusterNode) error {
	if c.LocalPods == 0 {
		c.LocalPods = 100
	}
	n, self := c.Nodes, c.Index
	mySubnet, myPrefix := podSubnet(self)
	myIP := underlayIP(self)
	networkID := guid(1, self)
	netName := "flannel.4096"

	// Network with N-1 RemoteSubnetRoutes.
	policies := []map[string]any{
		{"Type": "NetAdapterName", "Settings": map[string]any{"NetworkAdapterName": "Ethernet"}},
		{"Type": "ProviderAddress", "Settings": map[string]any{"ProviderAddress": myIP}},
		{"Type": "DrMacAddress", "Settings": map[string]any{"Address": mac("00-15", self)}},
		{"Type": "HostRoute", "Settings": map[string]any{}},
	}
	for i := range n {
		if i == self {
			continue
		}
		sub, _ := podSubnet(i)
		policies = append(policies, map[string]any{"Type": "RemoteSubnetRoute", "Settings": map[string]any{
			"DestinationPrefix": sub, "IsolationId": 4096, "ProviderAddress": underlayIP(i), "DistributedRouterMacAddress": mac("00-15", i)}})
	}
	networks := []map[string]any{{
		"ID": networkID, "Name": netName, "Type": "Overlay", "Flags": 0, "Policies": policies,
		"Ipams": []map[string]any{{"Type": "Static", "Subnets": []map[string]any{{
			"IpAddressPrefix": mySubnet,
			"Policies":        []map[string]any{{"Type": "VSID", "Settings": map[string]any{"IsolationId": 4096}}},
			"Routes":          []map[string]any{{"NextHop": myPrefix + "1", "DestinationPrefix": "0.0.0.0/0"}},
		}}}},
	}}

	// Endpoints: the source VIP (.2), local pods from .3, 20·N remote pods.
	var endpoints []map[string]any
	var localIDs, remoteIDs []string
	sourceVIP := myPrefix + "2"
	endpoints = append(endpoints, map[string]any{"ID": guid(2, 0), "Name": "sourceVip", "HostComputeNetwork": networkID, "Flags": 1,
		"IpConfigurations": []map[string]any{{"IpAddress": sourceVIP, "PrefixLength": 24}}, "MacAddress": mac("02-11", 2),
		"Policies": []map[string]any{{"Type": "ProviderAddress", "Settings": map[string]any{"ProviderAddress": myIP}}}})
	var pods []map[string]any
	for p := range c.LocalPods {
		id := guid(3, p)
		localIDs = append(localIDs, id)
		if p < 250 { // one Running pod per distinct pod address
			pods = append(pods, map[string]any{"metadata": map[string]any{"namespace": "default", "name": fmt.Sprintf("app-%d", p)},
				"spec":   map[string]any{"nodeName": nodeName(self), "containers": []map[string]any{{"name": "app", "ports": []map[string]any{{"containerPort": 80}}}}},
				"status": map[string]any{"phase": "Running", "podIP": fmt.Sprintf("%s%d", myPrefix, 3+p), "podIPs": []map[string]any{{"ip": fmt.Sprintf("%s%d", myPrefix, 3+p)}}}})
		}
		endpoints = append(endpoints, map[string]any{"ID": id, "Name": fmt.Sprintf("%012x_%s", p, netName), "HostComputeNetwork": networkID, "Flags": 0,
			"IpConfigurations": []map[string]any{{"IpAddress": fmt.Sprintf("%s%d", myPrefix, 3+p%250), "PrefixLength": 24}},
			"MacAddress":       mac("0E-2A", p),
			"Dns":              map[string]any{"Search": []string{"default.svc.cluster.local", "svc.cluster.local", "cluster.local"}, "ServerList": []string{"10.96.0.10"}},
			"Policies": []map[string]any{
				{"Type": "OutBoundNAT", "Settings": map[string]any{"Exceptions": []string{"10.64.0.0/10", "10.96.0.0/12", "172.16.0.0/16"}}},
				{"Type": "SDNRoute", "Settings": map[string]any{"DestinationPrefix": "10.96.0.0/12", "NeedEncap": true}},
				{"Type": "ProviderAddress", "Settings": map[string]any{"ProviderAddress": myIP}},
			}})
	}
	for r := range 20 * n {
		peer := (self + 1 + r%max(n-1, 1)) % n
		if peer == self {
			continue
		}
		_, prefix := podSubnet(peer)
		id := guid(4, r)
		remoteIDs = append(remoteIDs, id)
		endpoints = append(endpoints, map[string]any{"ID": id, "HostComputeNetwork": networkID, "Flags": 1,
			"IpConfigurations": []map[string]any{{"IpAddress": fmt.Sprintf("%s%d", prefix, 3+(r/max(n-1, 1))%250), "PrefixLength": 32}},
			"MacAddress":       mac("02-11", 1000+r),
			"Policies":         []map[string]any{{"Type": "ProviderAddress", "Settings": map[string]any{"ProviderAddress": underlayIP(peer)}}}})
	}
	// Every remote endpoint is some load balancer's backend, as kube-proxy
	// leaves them.
	backends := append(append([]string{}, remoteIDs...), localIDs...)
	var lbs []map[string]any
	var services []map[string]any
	cursor := 0
	var dnsIDs []string
	for s := range 5 * n {
		// kube-dns is 10.96.0.10; the others from 10.96.1.1 on, 250 per /24.
		vip := "10.96.0.10"
		if s > 0 {
			vip = fmt.Sprintf("10.%d.%d.%d", 96+(s/250+1)/256, (s/250+1)%256, s%250+1)
		}
		count := 1 + s%50
		var ids []string
		for range count {
			ids = append(ids, backends[cursor%len(backends)])
			cursor++
		}
		ports := []map[string]any{{"Protocol": 6, "InternalPort": 8080, "ExternalPort": 80}}
		svcPorts := []map[string]any{{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080}}
		name, ns := fmt.Sprintf("svc-%05d", s), "default"
		if s == 0 {
			dnsIDs = ids
			ports = []map[string]any{{"Protocol": 17, "InternalPort": 53, "ExternalPort": 53}}
			lbs = append(lbs, map[string]any{"ID": guid(5, 100000), "FrontendVIPs": []string{vip}, "SourceVIP": sourceVIP, "HostComputeEndpoints": ids,
				"PortMappings": []map[string]any{{"Protocol": 6, "InternalPort": 53, "ExternalPort": 53}}})
			svcPorts = []map[string]any{{"name": "dns", "protocol": "UDP", "port": 53, "targetPort": "53"}, {"name": "dns-tcp", "protocol": "TCP", "port": 53, "targetPort": "53"}}
			name, ns = "kube-dns", "kube-system"
		}
		lbs = append(lbs, map[string]any{"ID": guid(5, s), "FrontendVIPs": []string{vip}, "SourceVIP": sourceVIP, "HostComputeEndpoints": ids, "PortMappings": ports})
		services = append(services, map[string]any{"metadata": map[string]any{"name": name, "namespace": ns},
			"spec": map[string]any{"type": "ClusterIP", "clusterIP": vip, "clusterIPs": []string{vip}, "ports": svcPorts}})
	}
	var nodes []map[string]any
	for i := range n {
		sub, _ := podSubnet(i)
		nodeOS := "linux"
		if i%2 == 0 || i == self {
			nodeOS = "windows"
		}
		nodes = append(nodes, map[string]any{
			"metadata": map[string]any{"name": nodeName(i), "labels": map[string]string{"kubernetes.io/os": nodeOS},
				"annotations": map[string]string{"flannel.alpha.coreos.com/backend-type": "vxlan", "flannel.alpha.coreos.com/public-ip": underlayIP(i),
					"flannel.alpha.coreos.com/backend-data": fmt.Sprintf(`{"VNI":4096,"VtepMAC":"%s"}`, mac("00-15", i))}},
			"spec":   map[string]any{"podCIDR": sub, "podCIDRs": []string{sub}},
			"status": map[string]any{"addresses": []map[string]string{{"type": "InternalIP", "address": underlayIP(i)}}, "conditions": []map[string]string{{"type": "Ready", "status": "True"}}},
		})
	}
	files := map[string]any{
		"manifest.json":             map[string]any{"format": "diag-bundle", "version": 1, "node": nodeName(self), "os": "windows", "description": fmt.Sprintf("generated: node %d of a %d-node flannel VXLAN cluster", self, n)},
		"hns/v2/networks.json":      networks,
		"hns/v2/endpoints.json":     endpoints,
		"hns/v2/loadbalancers.json": lbs,
		"host/adapters.json": []map[string]any{{"Name": "vEthernet (Ethernet)", "InterfaceDescription": "Hyper-V Virtual Ethernet Adapter", "ifIndex": 12, "MacAddress": mac("00-15", self), "MtuSize": 1500, "Status": "Up",
			"IPAddresses": []map[string]any{{"IPAddress": myIP, "PrefixLength": 16}}, "Gateways": []string{"172.16.255.254"}}},
		"config/flannel/net-conf.json": map[string]any{"Network": "10.64.0.0/10", "Backend": map[string]any{"Type": "vxlan", "Name": netName, "VNI": 4096, "Port": 4789}},
		"host/routes.json":             []map[string]any{{"DestinationPrefix": "0.0.0.0/0", "NextHop": "172.16.255.254", "ifIndex": 12, "InterfaceAlias": "vEthernet (Ethernet)", "RouteMetric": 0}},
		"host/os.json":                 map[string]any{"Hostname": nodeName(self), "ProductName": "Windows Server 2022 Datacenter", "CurrentBuild": 20348, "UBR": 2849},
		"host/firewall.json": map[string]any{
			"Profiles": []map[string]any{{"Name": "Domain", "Enabled": "True"}, {"Name": "Private", "Enabled": "True"}, {"Name": "Public", "Enabled": "True"}},
			"Rules": []map[string]any{{"Name": "OverlayTraffic4789UDP", "Enabled": "True", "Direction": "Inbound", "Action": "Allow", "Profile": "Any",
				"Protocol": "UDP", "LocalPort": []string{"4789"}, "Program": "Any"},
				{"Name": "kubelet", "Enabled": "True", "Direction": "Inbound", "Action": "Allow", "Profile": "Any", "Protocol": "TCP", "LocalPort": []string{"10250"}, "Program": "Any"},
				{"Name": "kube-proxy-health", "Enabled": "True", "Direction": "Inbound", "Action": "Allow", "Profile": "Any", "Protocol": "TCP", "LocalPort": []string{"10256"}, "Program": "Any"}},
			"ConnectionProfiles": []map[string]any{{"InterfaceAlias": "vEthernet (Ethernet)", "NetworkCategory": "DomainAuthenticated"}},
			"Collected":          []string{"UDP:4789", "UDP:8472", "TCP:10250", "TCP:10256"},
		},
		"host/portranges.json": map[string]any{
			"excluded": map[string]any{"tcp": []map[string]any{{"start": 50000, "end": 50059, "administered": true}}, "udp": []map[string]any{}},
			"dynamic":  map[string]any{"tcp": map[string]any{"start": 49152, "count": 16384}, "udp": map[string]any{"start": 49152, "count": 16384}},
		},
		"k8s/nodes.json":    map[string]any{"apiVersion": "v1", "kind": "List", "items": nodes},
		"k8s/services.json": map[string]any{"apiVersion": "v1", "kind": "List", "items": services},
		"k8s/pods.json":     map[string]any{"apiVersion": "v1", "kind": "List", "items": pods},
		// Only kube-dns's slice: the scale benchmarks measure the HNS side.
		"k8s/endpointslices.json": map[string]any{"apiVersion": "v1", "kind": "List", "items": []map[string]any{{
			"metadata":    map[string]any{"name": "kube-dns-1", "namespace": "kube-system", "labels": map[string]string{"kubernetes.io/service-name": "kube-dns"}},
			"addressType": "IPv4", "endpoints": sliceEndpoints(endpoints, dnsIDs),
		}}},
	}
	for name, v := range files {
		if err := writeJSON(filepath.Join(dir, filepath.FromSlash(name)), v); err != nil {
			return err
		}
	}
	cmd := fmt.Sprintf(`C:\k\kube-proxy.exe --proxy-mode=kernelspace --hostname-override=%s --network-name=%s --source-vip=%s --cluster-cidr=10.64.0.0/10 --feature-gates=WinOverlay=true`,
		nodeName(self), netName, sourceVIP)
	if err := writeFile(filepath.Join(dir, "config", "kube-proxy", "cmdline.txt"), []byte(cmd)); err != nil {
		return err
	}
	// A healthy kube-proxy's log: one start, then syncs.
	kpLog := `I1124 09:00:00.100000    4412 server.go:847] "Version info" version="v1.31.4"` + "\n" +
		`I1124 09:00:00.210000    4412 server.go:849] "Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""` + "\n"
	for i := range 20 {
		kpLog += fmt.Sprintf(`I1124 09:%02d:00.000000    4412 proxier.go:1227] Updating network %s to check for new remote subnet policies`+"\n", i+1, netName)
	}
	if err := writeFile(filepath.Join(dir, "logs", "kube-proxy", "kube-proxy.log"), []byte(kpLog)); err != nil {
		return err
	}
	return writeVFP(dir, c, myIP, netName)
}

// writeVFP writes vfpctrl dumps for the first c.VFPPorts local endpoints, as
// HNS programs a healthy flannel VXLAN node.
func writeVFP(dir string, c ClusterNode, myIP, netName string) error {
	if c.VFPPorts <= 0 {
		return nil
	}
	var list strings.Builder
	list.WriteString("\nITEM LIST\n===========\n\n")
	for p := range min(c.VFPPorts, c.LocalPods) {
		name := guid(6, p)
		fmt.Fprintf(&list, "  Port name              : %s\n  Port Friendly name     : Container NIC %08x\n  Switch name            : %s\n  Switch Friendly name   : %s\n  PortId                 : %d\n  MAC address            : %s\n  Port is Enabled.\n\n",
			name, p, guid(7, 0), netName, p+3, mac("0E-2A", p))
		var b strings.Builder
		b.WriteString("ITEM LIST\n===========\n\n    LAYER : VNET_ENCAP_LAYER\n        Friendly name : VNET_ENCAP_LAYER\n        Flags : 0x1 Stateless\n        Priority : 100\n")
		b.WriteString("        GROUP : VNET_GROUP_ENCAP_IPV4_OUT\n            Friendly name : VNET_GROUP_ENCAP_IPV4_OUT\n            Priority : 100\n            Direction : OUT\n            Type : IPv4\n")
		for i := range c.Nodes {
			if i == c.Index {
				continue
			}
			sub, prefix := podSubnet(i)
			fmt.Fprintf(&b, "            RULE : \n                Friendly name : ENCAP_%s\n                Priority : 100\n                Flags : 1 terminating\n                Type : encap\n"+
				"                Conditions:\n                    Destination IP : %s0-%s255\n                Flow TTL: 0\n                Encap Type: VXLAN\n"+
				"                Encap Destination(s):\n                    { DIP=%s, VSID=4096, DMAC=%s }\n                Encap source IP : %s\n                FlagsEx : 0\n",
				strings.ReplaceAll(sub, "/", "_"), prefix, prefix, underlayIP(i), mac("00-15", i), myIP)
		}
		b.WriteString("    LAYER : SLB_NAT_LAYER\n        Friendly name : SLB_NAT_LAYER\n        Priority : 200\n        GROUP : SLB_GROUP_NAT_IPv4_OUT\n            Friendly name : SLB_GROUP_NAT_IPv4_OUT\n            Priority : 100\n            Direction : OUT\n            Type : IPv4\n")
		fmt.Fprintf(&b, "            RULE : \n                Friendly name : SNAT_TCP_OUTBOUNDNAT_%s\n                Priority : 100\n                Flags : 3 terminating stateful\n                Type : dynnat\n                Conditions:\n                    Protocols : 6\n", myIP)
		b.WriteString("Command list-rule succeeded!\n\nITEM LIST\n===========\n\n  Port State\n    Enabled : TRUE\n    Blocked : FALSE\n\nCommand get-port-state succeeded!\n")
		if err := writeFile(filepath.Join(dir, "vfp", "port-"+name+".txt"), []byte(b.String())); err != nil {
			return err
		}
	}
	list.WriteString("Command list-vmswitch-port succeeded!\n")
	return writeFile(filepath.Join(dir, "vfp", "ports.txt"), []byte(list.String()))
}

func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFile(path, data)
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// sliceEndpoints lists the generated endpoints with these IDs as ready
// EndpointSlice endpoints.
func sliceEndpoints(endpoints []map[string]any, ids []string) []map[string]any {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []map[string]any
	for _, e := range endpoints {
		if !want[e["ID"].(string)] {
			continue
		}
		ip := e["IpConfigurations"].([]map[string]any)[0]["IpAddress"].(string)
		out = append(out, map[string]any{"addresses": []string{ip}, "conditions": map[string]bool{"ready": true}})
	}
	return out
}
