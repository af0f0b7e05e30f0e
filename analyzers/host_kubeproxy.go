package analyzers

import (
	"fmt"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "HOST-04", Title: "kube-proxy's node name is not this node's", Severity: finding.Fail, WindowsOnly: true,
		Needs:   []snapshot.Input{snapshot.InputKubeProxy, snapshot.InputKubeNodes},
		Checks:  "The name kube-proxy runs as (--hostname-override, else the lower-cased host name) is the name of the Kubernetes Node that holds this host's addresses.",
		Why:     "kube-proxy tells local from remote endpoints by node name: with the wrong one it treats this node's pods as remote, programs them with the wrong provider address and deletes the endpoints it believes are not local (\"vNICs and HNS endpoints of containers are being deleted\").",
		Fix:     "Start kube-proxy with --hostname-override set to the Node's name (the same value kubelet uses, often $(hostname).ToLower() or NODE_NAME), then restart it.",
		Sources: []string{"kubernetes.io Windows debugging tips (hostname-override)", "https://github.com/Azure/AgentBaker/pull/2233", "https://github.com/kubernetes/kubernetes/pull/139503"},
		Check:   checkKubeProxyNodeName,
		Upstream: []string{
			"kubernetes cmd/kube-proxy/app/server.go (node name: --hostname-override, else the host name lower-cased)",
			"kubernetes pkg/proxy/endpointslicecache.go (an endpoint is local when its nodeName is kube-proxy's host name)",
		},
		Guards: []string{
			"skipped when kube-proxy has no --hostname-override and the host name is not known",
			"the host name is lower-cased as kube-proxy does",
			"a name that is a Node of the cluster passes, unless another Node holds this host's addresses",
			guardLinux,
		},
	})
}

func checkKubeProxyNodeName(s *snapshot.Snapshot) ([]Issue, error) {
	kp := s.KubeProxy
	name, from := kp.Hostname, kp.Source+" --hostname-override"
	if name == "" {
		if s.OS == nil || s.OS.Hostname == "" {
			return nil, Skip("kube-proxy has no --hostname-override and the host name is not known (%s)", snapshot.InputFiles[snapshot.InputOS])
		}
		name, from = strings.ToLower(s.OS.Hostname), s.OS.HostnameFrom+" (lower-cased: kube-proxy's default without --hostname-override)"
	}
	var self *snapshot.KubeNode
	for _, k := range s.KubeNodes {
		for _, ip := range k.InternalIPs {
			if s.AdapterWithAddr(ip) != nil {
				self = k
			}
		}
	}
	for _, k := range s.KubeNodes {
		if k.Name == name {
			if self != nil && self != k {
				break // the name belongs to another node
			}
			return nil, nil
		}
	}
	ev := []finding.Evidence{{File: kp.Source, Field: "node name", Value: name, Note: from}}
	summary := fmt.Sprintf("kube-proxy runs as node %q, which is not a Node of the cluster: it takes this node's pods for remote ones", name)
	if self != nil {
		summary = fmt.Sprintf("kube-proxy runs as node %q but this host is Node %q (it holds %s): kube-proxy takes this node's pods for remote ones", name, self.Name, joinAddrs(self.InternalIPs))
		ev[0].Expected = self.Name
		ev = append(ev, finding.Evidence{File: s.Inputs[snapshot.InputKubeNodes], Object: "node " + self.Name, Field: "status.addresses InternalIP", Value: joinAddrs(self.InternalIPs)})
	}
	return []Issue{{Summary: summary, Evidence: ev, Subjects: []string{"node:" + name}}}, nil
}
