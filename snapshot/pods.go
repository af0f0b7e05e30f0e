package snapshot

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// FileKubePods is this node's Pods (spec.nodeName = the node), as the
// collector asks the API server for them.
const FileKubePods = "k8s/pods.json"

// Pod is a Kubernetes Pod on this node: what its networking should be.
type Pod struct {
	Namespace   string       `json:"namespace,omitempty"`
	Name        string       `json:"name,omitempty"`
	NodeName    string       `json:"nodeName,omitempty"`
	Phase       string       `json:"phase,omitempty"` // Pending, Running, Succeeded, Failed
	HostNetwork bool         `json:"hostNetwork,omitempty"`
	Deleting    bool         `json:"deleting,omitempty"` // metadata.deletionTimestamp set
	StartTime   time.Time    `json:"startTime,omitzero"` // status.startTime
	PodIPs      []netip.Addr `json:"podIPs,omitempty"`
	HostPorts   []HostPort   `json:"hostPorts,omitempty"`
	// Restarts is the most restarts of one of its containers, and
	// Waiting that container's waiting reason (CrashLoopBackOff...).
	Restarts      int64  `json:"restarts,omitempty"`
	RestartedName string `json:"restartedContainer,omitempty"`
	Waiting       string `json:"waiting,omitempty"`
	LastExit      string `json:"lastExit,omitempty"` // lastState.terminated: reason and exit code
	// LastExitAt is when that container last terminated.
	LastExitAt time.Time `json:"lastExitAt,omitzero"`
	// CrashLooping names a container waiting in CrashLoopBackOff, any of them.
	CrashLooping string `json:"crashLooping,omitempty"`
}

// HostPort is a container port published on the node (ports[].hostPort).
type HostPort struct {
	Container     string `json:"container,omitempty"`
	Protocol      string `json:"protocol,omitempty"` // TCP (default), UDP, SCTP
	ContainerPort int64  `json:"containerPort,omitempty"`
	HostPort      int64  `json:"hostPort"`
}

// ParseKubePods parses a PodList, a single Pod or a bare array of Pods.
func ParseKubePods(data []byte) ([]*Pod, error) {
	return parseEach(data, func(o obj, _ int) *Pod { return podOf(o) })
}

func podOf(o obj) *Pod {
	meta, spec, status := o.child("metadata"), o.child("spec"), o.child("status")
	p := &Pod{Namespace: meta.str("namespace"), Name: meta.str("name"), NodeName: spec.str("nodeName"), Phase: status.str("phase"),
		Deleting: meta.str("deletionTimestamp") != ""}
	p.HostNetwork, _ = spec.boolean("hostNetwork")
	p.StartTime, _ = time.Parse(time.RFC3339, status.str("startTime"))
	for _, ip := range status.list("podIPs") {
		if a := parseAddr(ip.str("ip")); a.IsValid() {
			p.PodIPs = append(p.PodIPs, a)
		}
	}
	if len(p.PodIPs) == 0 {
		if a := parseAddr(status.str("podIP")); a.IsValid() {
			p.PodIPs = append(p.PodIPs, a)
		}
	}
	for _, cs := range status.list("containerStatuses") {
		waiting := cs.child("state").child("waiting").str("reason")
		if strings.EqualFold(waiting, "CrashLoopBackOff") && p.CrashLooping == "" {
			p.CrashLooping = cs.str("name")
		}
		n, _ := cs.num("restartCount")
		if n <= p.Restarts && p.RestartedName != "" {
			continue
		}
		p.Restarts, p.RestartedName, p.Waiting = n, cs.str("name"), waiting
		p.LastExit, p.LastExitAt = "", time.Time{}
		if t := cs.child("lastState").child("terminated"); t != nil {
			code, _ := t.num("exitCode")
			p.LastExit = fmt.Sprintf("%s (exit code %d)", t.str("reason"), code)
			p.LastExitAt, _ = time.Parse(time.RFC3339, t.str("finishedAt"))
		}
	}
	for _, c := range spec.list("containers") {
		for _, port := range c.list("ports") {
			hp, _ := port.num("hostPort")
			if hp <= 0 {
				continue
			}
			cp, _ := port.num("containerPort")
			proto := strings.ToUpper(port.str("protocol"))
			if proto == "" {
				proto = "TCP"
			}
			p.HostPorts = append(p.HostPorts, HostPort{Container: c.str("name"), Protocol: proto, ContainerPort: cp, HostPort: hp})
		}
	}
	return p
}
