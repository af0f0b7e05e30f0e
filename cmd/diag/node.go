package main

import (
	"io/fs"
	"os"
	"runtime"
	"strings"
)

// nodeName is the Kubernetes node name: NODE_NAME (set by the HostProcess
// manifest from the downward API), else the host name in lower case, as
// the kubelet registers it by default.
func nodeName(e *env) string {
	if n := e.getenv("NODE_NAME"); n != "" {
		return n
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return strings.ToLower(h)
	}
	return "node"
}

// rootFS is the node's file system: / on Linux, the system drive on Windows.
func rootFS() fs.FS {
	if runtime.GOOS == "windows" {
		drive := os.Getenv("SystemDrive")
		if drive == "" {
			drive = "C:"
		}
		return os.DirFS(drive + `\`)
	}
	// In diag collect --cluster's Linux pod the host's files are mounted
	// here (the pod's own root is the image's).
	if root := os.Getenv("DIAG_HOST_ROOT"); root != "" {
		return hostRootFS{files: os.DirFS(root), proc: os.DirFS("/")}
	}
	return os.DirFS("/")
}

// hostRootFS reads the host's files from where they are mounted, and /proc
// from the pod's own: a hostPath mount of / does not carry the host's
// /proc, while a hostPID pod's /proc shows the host's processes.
type hostRootFS struct{ files, proc fs.FS }

func (h hostRootFS) Open(name string) (fs.File, error) {
	if name == "proc" || strings.HasPrefix(name, "proc/") {
		return h.proc.Open(name)
	}
	return h.files.Open(name)
}
