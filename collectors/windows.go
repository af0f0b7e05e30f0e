package collectors

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// WindowsCollectors are what runs on a Windows node. They reach HNS through
// Env.HNS, commands (vfpctrl, PowerShell, netsh) through Env.Runner and
// files through Env.FS, so all of them run on Linux against fakes.
func WindowsCollectors() []Collector {
	return []Collector{
		{ID: "hns-v2", Description: "HNS v2 networks, endpoints, load balancers, namespaces, SDN routes, globals, hcsshim features", Timeout: 90 * time.Second, Run: collectHNSv2},
		{ID: "hns-v1", Description: "HNS v1 networks, endpoints and policy lists (the Get-HnsNetwork view)", Timeout: 90 * time.Second, Run: collectHNSv1},
		{ID: "vfp", Description: "VFP ports, layers, groups, rules, counters and port state (vfpctrl)", Timeout: 3 * time.Minute, Run: collectVFP},
		{ID: "host-adapters", Description: "adapters, IP addresses, MTU, forwarding", Timeout: time.Minute, Run: psCollector("host/adapters.json", psAdapters)},
		{ID: "host-routes", Description: "IPv4 and IPv6 routes", Timeout: time.Minute, Run: psCollector("host/routes.json", psRoutes)},
		{ID: "firewall", Description: "firewall profiles and rules for the VXLAN ports, kubelet (TCP 10250), kube-proxy health (TCP 10256) and the NodePort range", Timeout: time.Minute, Run: psCollector("host/firewall.json", psFirewall)},
		{ID: "os", Description: "product, build, UBR, hotfixes, host name", Timeout: time.Minute, Run: psCollector("host/os.json", psOS)},
		{ID: "port-ranges", Description: "excluded and dynamic port ranges (netsh)", Timeout: 30 * time.Second, Run: collectPortRanges},
		{ID: "kube-proxy", Description: "kube-proxy's command line", Timeout: 30 * time.Second, Run: collectWindowsKubeProxy},
		{ID: "cni-config", Description: "CNI configuration files", Timeout: 10 * time.Second,
			Run: configCollector("config/cni", "etc/cni/net.d/*", "k/cni/config/*", "k/cni/*.conf", "k/cni/*.conflist")},
		{ID: "flannel-config", Description: "flannel net-conf.json and subnet.env", Timeout: 10 * time.Second,
			Run: configCollector("config/flannel", "etc/kube-flannel/net-conf.json", "run/flannel/subnet.env", "k/flannel/net-conf.json")},
		{ID: "calico-config", Description: "Calico for Windows configuration", Timeout: 10 * time.Second,
			Run: configCollector("config/calico", "CalicoWindows/config.ps1", "Program Files/Calico/config.ps1", "k/calico/config.ps1")},
		{ID: "node-config", Description: "the node's cluster configuration (AKS kubeclusterconfig.json)", Timeout: 10 * time.Second,
			Run: configCollector("config/node", "k/kubeclusterconfig.json")},
		{ID: "logs", Description: "tails of the kube-proxy, CNI, flannel, Calico, kubelet and containerd logs", Timeout: time.Minute, Run: collectWindowsLogs},
		{ID: "hns-events", Description: "the HNS Admin and Operational event channels (last 500 of each) and the Service Control Manager's events about HNS", Timeout: time.Minute, Run: psCollector("events/hns.json", psHNSEvents)},
	}
}

var hnsV2Kinds = []HNSKind{HNSNetworks, HNSEndpoints, HNSLoadBalancers, HNSNamespaces, HNSRoutes}

// collectHNSv2 stores every v2 object as HNS returns it, with the plain
// query (hns/v2/) and with the Detailed flag (hns/v2/detailed/), which adds
// resources and layer data.
func collectHNSv2(ctx context.Context, e *Env, out *Output) error {
	if e.HNS == nil {
		return fmt.Errorf("HNS: %w", ErrUnsupported)
	}
	failed := 0
	for _, kind := range hnsV2Kinds {
		for _, detailed := range []bool{false, true} {
			name := "hns/v2/" + string(kind) + ".json"
			if detailed {
				name = "hns/v2/detailed/" + string(kind) + ".json"
			}
			data, err := e.HNS.ListV2(ctx, kind, detailed)
			if err == nil {
				err = out.WriteText(name, data)
			}
			if err != nil {
				failed++
				out.Problem(fmt.Errorf("HNS v2 %s: %w", kind, err))
			}
		}
	}
	if data, err := e.HNS.GetV1(ctx, "/globals/version"); err == nil {
		if err := out.WriteText("hns/v2/globals.json", data); err != nil {
			return err
		}
	} else {
		out.Problem(fmt.Errorf("HNS globals: %w", err))
	}
	if data, err := e.HNS.GetFeatures(ctx); err == nil {
		if err := out.WriteText("hns/v2/features.json", data); err != nil {
			return err
		}
	} else {
		out.Problem(fmt.Errorf("HNS features (hcsshim): %w", err))
	}
	if failed == 2*len(hnsV2Kinds) {
		return fmt.Errorf("no HNS v2 query answered (is this Windows Server 2019 or later, run as Administrator?)")
	}
	return nil
}

// collectHNSv1 stores the v1 view (ManagementIP, DrMacAddress, LayeredOn,
// IsRemoteEndpoint, ELB policy lists) that Get-HnsNetwork prints.
func collectHNSv1(ctx context.Context, e *Env, out *Output) error {
	if e.HNS == nil {
		return fmt.Errorf("HNS: %w", ErrUnsupported)
	}
	failed := 0
	paths := []struct{ path, file string }{
		{"/networks/", "hns/v1/networks.json"},
		{"/endpoints/", "hns/v1/endpoints.json"},
		{"/policylists/", "hns/v1/policylists.json"},
	}
	for _, p := range paths {
		data, err := e.HNS.GetV1(ctx, p.path)
		if err == nil {
			err = out.WriteText(p.file, data)
		}
		if err != nil {
			failed++
			out.Problem(fmt.Errorf("HNS v1 GET %s: %w", p.path, err))
		}
	}
	if failed == len(paths) {
		return fmt.Errorf("no HNS v1 query answered")
	}
	return nil
}

// vfpParallel is how many ports are dumped at once: vfpctrl takes a few
// hundred milliseconds per call on a busy node.
const vfpParallel = 8

// vfpPortCommands are run for every port; their outputs, each ending in
// vfpctrl's "Command <verb> succeeded!", make vfp/port-<name>.txt.
var vfpPortCommands = [][]string{{"/list-rule"}, {"/get-rule-counter"}, {"/get-port-state"}, {"/get-port-counter"}}

func collectVFP(ctx context.Context, e *Env, out *Output) error {
	list, err := out.Command(ctx, e, "vfp/ports.txt", "vfpctrl", "/list-vmswitch-port")
	if err != nil {
		return err
	}
	// vfpctrl on newer builds prints JSON with /format 1; keep it beside
	// the text when it does (analyze reads the text).
	if js, err := e.Runner.Run(ctx, "vfpctrl", "/list-vmswitch-port", "/format", "1"); err == nil && isJSON(js) {
		if err := out.WriteText("vfp/ports.json", js); err != nil {
			return err
		}
	}
	ports := VFPPortNames(list)
	if len(ports) == 0 {
		out.Logf("vfpctrl lists no ports")
		return nil
	}
	work := make(chan string)
	var wg sync.WaitGroup
	for range min(vfpParallel, len(ports)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for port := range work {
				dumpVFPPortSafely(ctx, e, out, port)
			}
		}()
	}
	for _, p := range ports {
		select {
		case work <- p:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(work)
	wg.Wait()
	return ctx.Err()
}

// dumpVFPPortSafely keeps a panic in one port's dump from ending the
// program: the runner recovers only the collector's own goroutine.
func dumpVFPPortSafely(ctx context.Context, e *Env, out *Output, port string) {
	defer func() {
		if p := recover(); p != nil {
			out.Problem(fmt.Errorf("port %s: panic: %v", port, p))
		}
	}()
	dumpVFPPort(ctx, e, out, port)
}

func dumpVFPPort(ctx context.Context, e *Env, out *Output, port string) {
	var text strings.Builder
	for _, c := range vfpPortCommands {
		if ctx.Err() != nil {
			return
		}
		args := append([]string{"/port", port}, c...)
		data, err := e.Runner.Run(ctx, "vfpctrl", args...)
		if err != nil {
			out.Problem(fmt.Errorf("vfpctrl %s: %w", strings.Join(args, " "), err))
			continue
		}
		text.Write(data)
		if !strings.HasSuffix(text.String(), "\n") {
			text.WriteByte('\n')
		}
	}
	if text.Len() > 0 {
		if err := out.WriteText("vfp/port-"+safeName(port)+".txt", []byte(text.String())); err != nil {
			out.Problem(err)
		}
	}
}

// VFPPortNames reads the "Port name : <name>" lines of vfpctrl
// /list-vmswitch-port, each name once (collect and the monitor read ports
// by them).
func VFPPortNames(list []byte) []string {
	var names []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(list), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || strings.TrimSpace(k) != "Port name" {
			continue
		}
		if v = strings.TrimSpace(v); v != "" && !seen[v] {
			seen[v] = true
			names = append(names, v)
		}
	}
	return names
}

func collectWindowsKubeProxy(ctx context.Context, e *Env, out *Output) error {
	data, err := runPowerShell(ctx, e, psKubeProxy)
	if err != nil {
		return fmt.Errorf("kube-proxy command line: %w", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return Skip("no kube-proxy process or service on this node")
	}
	return out.WriteText("config/kube-proxy/cmdline.txt", data)
}

func collectWindowsLogs(ctx context.Context, e *Env, out *Output) error {
	total := 0
	for _, l := range []struct {
		dir      string
		patterns []string
	}{
		{"logs/kube-proxy", []string{"k/kube-proxy*.log", "k/kubeproxy*.log", "var/log/kube-proxy/*.log"}},
		{"logs/cni", []string{"k/azure-vnet*.log", "var/log/cni/*.log", "k/cni/*.log"}},
		{"logs/flannel", []string{"k/flannel/*.log", "var/log/flanneld/*.log", "k/flanneld*.log"}},
		{"logs/calico", []string{"CalicoWindows/logs/*.log", "k/calico/logs/*.log"}},
		// Where AKS, sig-windows-tools and RKE2 write them; CNI failures
		// reach these logs when the plugin writes none of its own.
		{"logs/kubelet", []string{"k/kubelet*.log", "var/log/kubelet/*.log", "var/lib/rancher/rke2/agent/logs/kubelet.log"}},
		{"logs/containerd", []string{"k/containerd*.log", "var/log/containerd/*.log", "var/lib/rancher/rke2/agent/containerd/containerd.log"}},
	} {
		n, err := out.CopyFiles(e.FS, l.dir, e.maxLog(), l.patterns...)
		if err != nil {
			return err
		}
		total += n
	}
	if total == 0 {
		return Skip("no kube-proxy, CNI, flannel, Calico, kubelet or containerd logs found")
	}
	return nil
}

// PortRange is an excluded port range as netsh prints it.
type PortRange struct {
	Start        int  `json:"start"`
	End          int  `json:"end"`
	Administered bool `json:"administered,omitempty"`
}

// DynamicPorts is the dynamic (ephemeral) port range of one protocol.
type DynamicPorts struct {
	Start int `json:"start"`
	Count int `json:"count"`
}

// PortRanges is host/portranges.json: what netsh shows, parsed, with the
// raw text kept beside it.
type PortRanges struct {
	Excluded map[string][]PortRange   `json:"excluded"`
	Dynamic  map[string]*DynamicPorts `json:"dynamic"`
	Raw      map[string]string        `json:"raw"`
}

func collectPortRanges(ctx context.Context, e *Env, out *Output) error {
	pr := PortRanges{Excluded: map[string][]PortRange{}, Dynamic: map[string]*DynamicPorts{}, Raw: map[string]string{}}
	ok := 0
	netsh := func(args ...string) (string, bool) {
		data, err := e.Runner.Run(ctx, "netsh", args...)
		if err == nil && len(bytes.TrimSpace(data)) == 0 {
			// Both queries print a header at least: nothing is no answer.
			err = fmt.Errorf("netsh %s printed nothing", strings.Join(args, " "))
		}
		if err != nil {
			out.Problem(err)
			return "", false
		}
		ok++
		return string(data), true
	}
	for _, proto := range []string{"tcp", "udp"} {
		if data, answered := netsh("interface", "ipv4", "show", "excludedportrange", "protocol="+proto); answered {
			pr.Excluded[proto] = ParseExcludedPortRanges(data)
			pr.Raw["excludedportrange "+proto] = data
		}
		if data, answered := netsh("interface", "ipv4", "show", "dynamicport", proto); answered {
			pr.Dynamic[proto] = ParseDynamicPorts(data)
			pr.Raw["dynamicport "+proto] = data
		}
	}
	if ok == 0 {
		return fmt.Errorf("netsh answered none of the port range queries")
	}
	data, err := json.MarshalIndent(pr, "", "  ")
	if err != nil {
		return err
	}
	return out.WriteText("host/portranges.json", data)
}

// ParseExcludedPortRanges reads `netsh int ipv4 show excludedportrange`:
// rows of a start and an end port, "*" marking administered exclusions.
func ParseExcludedPortRanges(text string) []PortRange {
	ranges := []PortRange{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || len(f) > 3 {
			continue
		}
		start, ok1 := atoiPort(f[0])
		end, ok2 := atoiPort(f[1])
		if !ok1 || !ok2 || end < start {
			continue
		}
		ranges = append(ranges, PortRange{Start: start, End: end, Administered: len(f) == 3 && f[2] == "*"})
	}
	return ranges
}

// ParseDynamicPorts reads `netsh int ipv4 show dynamicport`: "Start Port
// : 49152" and "Number of Ports : 16384" (the labels are localized; the
// numbers come in that order).
func ParseDynamicPorts(text string) *DynamicPorts {
	var nums []int
	for _, line := range strings.Split(text, "\n") {
		_, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		if n, ok := atoiPort(strings.TrimSpace(v)); ok {
			nums = append(nums, n)
		} else if n, ok := atoiCount(strings.TrimSpace(v)); ok {
			nums = append(nums, n)
		}
	}
	if len(nums) < 2 {
		return nil
	}
	return &DynamicPorts{Start: nums[0], Count: nums[1]}
}

func atoiPort(s string) (int, bool) {
	n, ok := atoiCount(s)
	return n, ok && n <= 65535
}

func atoiCount(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= 65536
}
