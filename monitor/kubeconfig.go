package monitor

import (
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"

	"github.com/wincni/diag/cluster"
)

// KubeConfig finds the API server's credentials: --kubeconfig, else a
// HostProcess pod's service account (under its sandbox mount point, not
// where client-go looks), else what kubectl would use or a pod's service
// account. It returns nil and the reason when there are none.
func KubeConfig(explicit string) (*rest.Config, string, error) {
	if explicit == "" {
		if root := os.Getenv("CONTAINER_SANDBOX_MOUNT_POINT"); root != "" && os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
			dir := filepath.Join(root, "var", "run", "secrets", "kubernetes.io", "serviceaccount")
			return &rest.Config{
				Host:            "https://" + net.JoinHostPort(os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")),
				BearerTokenFile: filepath.Join(dir, "token"),
				TLSClientConfig: rest.TLSClientConfig{CAFile: filepath.Join(dir, "ca.crt")},
			}, "in-cluster (HostProcess)", nil
		}
	}
	t, err := cluster.LoadTarget(explicit, "")
	if err != nil {
		return nil, "", err
	}
	return t.Config, t.Context, nil
}
