package snapshot

import (
	"net/netip"
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
