package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
)

// Labels on every object a collection creates: cleanup finds them by the
// first, one run's by the second.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedBy      = "diag-collect-cluster"
	LabelRun       = "diag.wincni.io/run"
	LabelNode      = "diag.wincni.io/node"
	containerName  = "diag"
	// ServiceAccount is the account collector pods run as: read-only
	// access for the bundle's Kubernetes context (deploy/cluster-rbac.yaml).
	ServiceAccount = "diag"
)

// PodSpec is how a collector pod is made.
type PodSpec struct {
	Namespace string
	Image     string
	Run       string        // this run's ID
	Deadline  time.Duration // the pod's activeDeadlineSeconds: it ends itself after a killed run
}

// PodName is the collector pod's name for a node in a run: a DNS label,
// unique per node even where long names are cut.
func PodName(node, run string) string {
	h := sha256.Sum256([]byte(node))
	suffix := "-" + hex.EncodeToString(h[:3]) + "-" + run
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '-'
	}, node)
	name = "diag-" + name
	if len(name) > 63-len(suffix) {
		name = name[:63-len(suffix)]
	}
	return strings.TrimRight(name, "-") + suffix
}

// The manifest's types: the fields used, with the API's JSON names.
type (
	podManifest struct {
		APIVersion string      `json:"apiVersion"`
		Kind       string      `json:"kind"`
		Metadata   objectMeta  `json:"metadata"`
		Spec       podSpecJSON `json:"spec"`
	}
	objectMeta struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	}
	podSpecJSON struct {
		NodeName                      string            `json:"nodeName"`
		NodeSelector                  map[string]string `json:"nodeSelector"`
		Tolerations                   []toleration      `json:"tolerations"`
		HostNetwork                   bool              `json:"hostNetwork"`
		HostPID                       bool              `json:"hostPID,omitempty"`
		ServiceAccountName            string            `json:"serviceAccountName"`
		RestartPolicy                 string            `json:"restartPolicy"`
		ActiveDeadlineSeconds         int64             `json:"activeDeadlineSeconds"`
		TerminationGracePeriodSeconds int64             `json:"terminationGracePeriodSeconds"`
		PriorityClassName             string            `json:"priorityClassName,omitempty"`
		SecurityContext               *podSecurity      `json:"securityContext,omitempty"`
		Containers                    []container       `json:"containers"`
		Volumes                       []volume          `json:"volumes,omitempty"`
	}
	toleration struct {
		Operator string `json:"operator"`
	}
	podSecurity struct {
		WindowsOptions *windowsOptions `json:"windowsOptions,omitempty"`
	}
	windowsOptions struct {
		HostProcess   bool   `json:"hostProcess"`
		RunAsUserName string `json:"runAsUserName"`
	}
	container struct {
		Name            string             `json:"name"`
		Image           string             `json:"image"`
		Command         []string           `json:"command"`
		Env             []envVar           `json:"env"`
		SecurityContext *containerSecurity `json:"securityContext,omitempty"`
		VolumeMounts    []volumeMount      `json:"volumeMounts,omitempty"`
		Resources       resources          `json:"resources"`
	}
	envVar struct {
		Name      string     `json:"name"`
		Value     string     `json:"value,omitempty"`
		ValueFrom *envSource `json:"valueFrom,omitempty"`
	}
	envSource struct {
		FieldRef fieldRef `json:"fieldRef"`
	}
	fieldRef struct {
		FieldPath string `json:"fieldPath"`
	}
	containerSecurity struct {
		RunAsUser    *int64       `json:"runAsUser,omitempty"`
		Capabilities capabilities `json:"capabilities"`
	}
	capabilities struct {
		Add  []string `json:"add,omitempty"`
		Drop []string `json:"drop,omitempty"`
	}
	volumeMount struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
		ReadOnly  bool   `json:"readOnly"`
		// RecursiveReadOnly makes the host's other mounts under / read-only
		// too where the kubelet and runtime can (Kubernetes 1.30 and later;
		// older API servers drop the field with a warning).
		RecursiveReadOnly string `json:"recursiveReadOnly,omitempty"`
	}
	volume struct {
		Name     string `json:"name"`
		HostPath struct {
			Path string `json:"path"`
		} `json:"hostPath"`
	}
	resources struct {
		Limits map[string]string `json:"limits"`
	}
)

// WindowsBinary is diag.exe in a HostProcess container: the image's files
// are under the sandbox mount point (C:\hpc, or C:\hpc\<id> on hosts
// without bind filter), whose name hcsshim writes into the command line of
// the container and of every exec (internal/jobcontainers); the working
// directory differs across containerd versions, so no relative path. cmd /c
// (which hcsshim adds itself on bind-mount hosts) passes the standard
// handles through untouched, and exec runs without a TTY, so the binary
// stream arrives as written.
var WindowsBinary = []string{"cmd.exe", "/c", `%CONTAINER_SANDBOX_MOUNT_POINT%\diag.exe`}

// LinuxBinary is diag in the Linux image, found on the image's PATH (the
// runtime looks it up there, as for the container's command): the image
// has it in /usr/local/bin, and an image of the user's own (--image) may
// have it wherever its PATH reaches.
var LinuxBinary = []string{"diag"}

// Binary is how a command runs diag in the collector pod of a node of
// that OS.
func Binary(os string) []string {
	if os == "windows" {
		return WindowsBinary
	}
	return LinuxBinary
}

// Manifest is the collector pod for a node: pinned to it by name (no
// scheduler, so a cordoned node is reached too), tolerating every taint
// (nodes are tainted because their networking is broken), on Windows a
// HostProcess pod as SYSTEM (HNS and vfpctrl need an administrator), on
// Linux a host-network, host-PID pod as root, not privileged, every
// capability dropped but NET_RAW (the capture's packet socket) and
// DAC_READ_SEARCH (files of other owners; netlink dumps need none), that
// sees the host's files under
// /host. It idles until the run execs diag collect in it (its main process
// must live: when it ends, hcsshim ends every process of the job, the
// exec'd collection too), and ends itself at its deadline if the run is
// killed.
func (p PodSpec) Manifest(node Node) ([]byte, error) {
	name := PodName(node.Name, p.Run)
	c := container{
		Name:    containerName,
		Image:   p.Image,
		Command: append(append([]string{}, Binary(node.OS)...), "idle", "--for", p.Deadline.String()),
		Env: []envVar{
			{Name: "NODE_NAME", ValueFrom: &envSource{FieldRef: fieldRef{FieldPath: "spec.nodeName"}}},
		},
		Resources: resources{Limits: map[string]string{"memory": "1Gi"}},
	}
	spec := podSpecJSON{
		NodeName:                      node.Name,
		NodeSelector:                  map[string]string{"kubernetes.io/os": node.OS},
		Tolerations:                   []toleration{{Operator: "Exists"}},
		HostNetwork:                   true,
		ServiceAccountName:            ServiceAccount,
		RestartPolicy:                 "Never",
		ActiveDeadlineSeconds:         int64(p.Deadline.Seconds()),
		TerminationGracePeriodSeconds: 5,
	}
	if node.OS == "windows" {
		spec.SecurityContext = &podSecurity{WindowsOptions: &windowsOptions{HostProcess: true, RunAsUserName: `NT AUTHORITY\SYSTEM`}}
	} else {
		spec.HostPID = true
		root := int64(0)
		c.SecurityContext = &containerSecurity{RunAsUser: &root, Capabilities: capabilities{Drop: []string{"ALL"}, Add: []string{"NET_RAW", "DAC_READ_SEARCH"}}}
		c.Env = append(c.Env, envVar{Name: "DIAG_HOST_ROOT", Value: "/host"})
		c.VolumeMounts = []volumeMount{{Name: "host", MountPath: "/host", ReadOnly: true, RecursiveReadOnly: "IfPossible"}}
		v := volume{Name: "host"}
		v.HostPath.Path = "/"
		spec.Volumes = []volume{v}
	}
	spec.Containers = []container{c}
	return json.Marshal(podManifest{
		APIVersion: "v1", Kind: "Pod",
		Metadata: objectMeta{Name: name, Namespace: p.Namespace, Labels: map[string]string{
			LabelManagedBy: ManagedBy, LabelRun: p.Run, LabelNode: labelValue(node.Name),
		}},
		Spec: spec,
	})
}

// labelValue fits a node name into a label value (63 characters).
func labelValue(s string) string {
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-_.")
}
