package collectors

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
)

// LinuxCollectors are what runs on a Linux node of a mixed cluster: the
// Linux side of the overlay (links with VXLAN details, addresses, routes,
// neighbours, the bridge FDB), the CNI, flannel and Calico configuration,
// kube-proxy's command line, log tails and OS facts.
func LinuxCollectors() []Collector {
	return []Collector{
		{ID: "linux-net", Description: "ip -j -d link, addr, route, neigh; bridge -j fdb", Timeout: 30 * time.Second, Run: collectLinuxNet},
		{ID: "os", Description: "OS release, kernel and host name", Timeout: 10 * time.Second, Run: collectLinuxOS},
		{ID: "cni-config", Description: "CNI configuration files", Timeout: 10 * time.Second, Run: configCollector("config/cni", "etc/cni/net.d/*")},
		{ID: "flannel-config", Description: "flannel net-conf.json and subnet.env", Timeout: 10 * time.Second,
			Run: configCollector("config/flannel", "etc/kube-flannel/net-conf.json", "run/flannel/subnet.env")},
		{ID: "calico-config", Description: "Calico configuration", Timeout: 10 * time.Second,
			Run: configCollector("config/calico", "etc/calico/*.cfg", "etc/calico/*.yaml", "etc/calico/*.env")},
		{ID: "kube-proxy", Description: "kube-proxy's command line", Timeout: 10 * time.Second, Run: collectLinuxKubeProxy},
		{ID: "logs", Description: "tails of the flannel, Calico and kube-proxy logs", Timeout: 30 * time.Second, Run: collectLinuxLogs},
	}
}

// linuxNetCommands are the iproute2 commands and where their JSON goes.
var linuxNetCommands = []struct {
	file string
	cmd  string
	args []string
}{
	{"linux/ip-link.json", "ip", []string{"-j", "-d", "link", "show"}},
	{"linux/ip-addr.json", "ip", []string{"-j", "addr", "show"}},
	{"linux/ip-route.json", "ip", []string{"-j", "route", "show"}},
	{"linux/ip-neigh.json", "ip", []string{"-j", "neigh", "show"}},
	{"linux/bridge-fdb.json", "bridge", []string{"-j", "fdb", "show"}},
}

func collectLinuxNet(ctx context.Context, e *Env, out *Output) error {
	ok := 0
	var last error
	for _, c := range linuxNetCommands {
		if _, err := out.Command(ctx, e, c.file, c.cmd, c.args...); err != nil {
			out.Problem(err)
			last = err
			continue
		}
		ok++
	}
	if ok == 0 {
		return fmt.Errorf("no iproute2 command worked: %w", last)
	}
	return nil
}

// collectLinuxOS writes host/os.json from /etc/os-release and /proc.
func collectLinuxOS(ctx context.Context, e *Env, out *Output) error {
	info := map[string]string{"OS": "linux"}
	if data, err := fs.ReadFile(e.FS, "etc/os-release"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
			if !ok {
				continue
			}
			v = strings.Trim(v, `"'`)
			switch k {
			case "PRETTY_NAME":
				info["ProductName"] = v
			case "VERSION_ID":
				info["Version"] = v
			case "ID":
				info["Distribution"] = v
			}
		}
	}
	for key, file := range map[string]string{"KernelVersion": "proc/sys/kernel/osrelease", "Hostname": "proc/sys/kernel/hostname"} {
		if data, err := fs.ReadFile(e.FS, file); err == nil {
			info[key] = strings.TrimSpace(string(data))
		}
	}
	if e.NodeName != "" && info["Hostname"] == "" {
		info["Hostname"] = e.NodeName
	}
	if len(info) == 1 {
		return fmt.Errorf("neither /etc/os-release nor /proc/sys/kernel could be read")
	}
	data, _ := json.MarshalIndent(info, "", "  ")
	return out.WriteText("host/os.json", data)
}

// collectLinuxKubeProxy finds kube-proxy among the processes and keeps its
// command line, one argument per line (arguments may hold spaces).
func collectLinuxKubeProxy(ctx context.Context, e *Env, out *Output) error {
	procs, err := fs.ReadDir(e.FS, "proc")
	if err != nil {
		return fmt.Errorf("read /proc: %w", err)
	}
	for _, p := range procs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !p.IsDir() || strings.Trim(p.Name(), "0123456789") != "" {
			continue
		}
		data, err := fs.ReadFile(e.FS, "proc/"+p.Name()+"/cmdline")
		if err != nil || len(data) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		if path.Base(args[0]) != "kube-proxy" {
			continue
		}
		return out.WriteText("config/kube-proxy/cmdline.txt", []byte(strings.Join(args, "\n")+"\n"))
	}
	return Skip("no kube-proxy process on this node")
}

func collectLinuxLogs(ctx context.Context, e *Env, out *Output) error {
	// Container logs are symlinks into /var/log/pods; fs.Stat follows them.
	n, err := out.CopyFiles(e.FS, "logs/containers", e.maxLog(),
		"var/log/containers/kube-flannel*.log", "var/log/containers/kube-proxy*.log",
		"var/log/containers/calico-node*.log", "var/log/flanneld.log", "var/log/kube-proxy.log")
	if err != nil {
		return err
	}
	if n == 0 {
		return Skip("no flannel, Calico or kube-proxy logs found")
	}
	return nil
}

// configCollector copies configuration files (redacted) under dir.
func configCollector(dir string, patterns ...string) func(context.Context, *Env, *Output) error {
	return func(ctx context.Context, e *Env, out *Output) error {
		n, err := out.CopyFiles(e.FS, dir, maxConfigBytes, patterns...)
		if err != nil {
			return err
		}
		if n == 0 {
			return Skip("none of %s exists", strings.Join(patterns, ", "))
		}
		return nil
	}
}

// maxConfigBytes caps one configuration file: real ones are a few KB.
const maxConfigBytes = 1 << 20

// DefaultMaxLogBytes caps one log tail.
const DefaultMaxLogBytes = 4 << 20

func (e *Env) maxLog() int64 {
	if e.MaxLogBytes > 0 {
		return e.MaxLogBytes
	}
	return DefaultMaxLogBytes
}

// isJSON reports whether command output is JSON worth keeping.
func isJSON(data []byte) bool {
	return json.Valid(bytes.TrimSpace(data)) && len(bytes.TrimSpace(data)) > 0
}
