package collectors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/wincni/diag/hostexec"
)

// KubeCollector reads this node's Kubernetes context: every Node, every
// Service and the Pods scheduled on this node, as the API server returns
// them, the EndpointSlices (which backends are ready, on which node) and,
// on Calico clusters, Calico's IPAM configuration, block affinities and blocks.
// No kubeconfig or an unreachable API server makes it skipped.
func KubeCollector() Collector {
	return Collector{ID: "kubernetes", Description: "nodes, services, endpoint slices and this node's pods from the API server", Timeout: 45 * time.Second, Run: collectKube}
}

// kubeQuery is one list the Kubernetes collector reads.
type kubeQuery struct {
	file, path string
	optional   bool // a 404 means the resource does not exist here
}

// kubeQueries are the cluster-wide lists (the node's own Pods are added
// with its name). deploy/'s RBAC must allow each: a test holds it to that.
var kubeQueries = []kubeQuery{
	{"k8s/nodes.json", "/api/v1/nodes", false},
	{"k8s/services.json", "/api/v1/services", false},
	{"k8s/endpointslices.json", "/apis/discovery.k8s.io/v1/endpointslices", false},
	// Calico's IPAM (Kubernetes datastore): absent on other clusters.
	{"k8s/calico-ipamconfigs.json", "/apis/crd.projectcalico.org/v1/ipamconfigs", true},
	{"k8s/calico-blockaffinities.json", "/apis/crd.projectcalico.org/v1/blockaffinities", true},
	{"k8s/calico-ipamblocks.json", "/apis/crd.projectcalico.org/v1/ipamblocks", true},
}

func collectKube(ctx context.Context, e *Env, out *Output) error {
	if e.Kube == nil && e.KubeErr != nil {
		return Skip("Kubernetes context not collected: %v", e.KubeErr)
	}
	if e.Kube == nil {
		return Skip("no kubeconfig and not in a pod: Kubernetes context not collected (--kubeconfig)")
	}
	queries := append([]kubeQuery{}, kubeQueries...)
	if e.NodeName != "" {
		queries = append(queries, kubeQuery{"k8s/pods.json", "/api/v1/pods?fieldSelector=" + url.QueryEscape("spec.nodeName="+e.NodeName), false})
	}
	unreachable := 0
	var first error
	for _, q := range queries {
		data, err := e.Kube.Get(ctx, q.path)
		if err != nil {
			if q.optional && errors.Is(err, errNotFound) {
				continue
			}
			if first == nil {
				first = err
			}
			if isUnreachable(err) {
				unreachable++
			} else {
				out.Problem(fmt.Errorf("GET %s: %w", q.path, err))
			}
			continue
		}
		if err := out.WriteText(q.file, data); err != nil {
			return err
		}
	}
	if unreachable == len(queries) {
		return Skip("API server unreachable: %v", first)
	}
	if len(out.Files()) == 0 && first != nil {
		return first
	}
	return nil
}

// isUnreachable: the API server could not be reached at all (as opposed to
// answering with an error).
func isUnreachable(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var ue *url.Error
	return errors.As(err, &oe) || errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded)
}

// errNotFound is a 404: the resource type does not exist in this cluster.
var errNotFound = errors.New("404 Not Found")

// restKube is a KubeSource over client-go's authenticated HTTP client: it
// only ever sends GET.
type restKube struct {
	host   string
	client *http.Client
}

// NewKubeSource builds a read-only API client from kubeconfig (empty: the
// usual places, KUBECONFIG, ~/.kube/config, C:\k\config on Windows), else
// from in-cluster credentials. It returns nil, nil when there is none.
func NewKubeSource(kubeconfig string) (KubeSource, string, error) {
	cfg, from, err := kubeConfig(kubeconfig)
	if err != nil || cfg == nil {
		return nil, from, err
	}
	cfg.Timeout = 20 * time.Second
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, from, fmt.Errorf("kubeconfig %s: %w", from, err)
	}
	host := cfg.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	return &restKube{host: strings.TrimRight(host, "/") + cfg.APIPath, client: client}, from, nil
}

func kubeConfig(explicit string) (*rest.Config, string, error) {
	if explicit != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", explicit)
		if err != nil {
			return nil, explicit, fmt.Errorf("kubeconfig %s: %w", explicit, err)
		}
		return cfg, explicit, nil
	}
	// A HostProcess pod sees its service account token under the sandbox
	// mount point, not at the Linux path client-go looks for.
	if root := os.Getenv("CONTAINER_SANDBOX_MOUNT_POINT"); root != "" && os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		dir := filepath.Join(root, "var", "run", "secrets", "kubernetes.io", "serviceaccount")
		cfg := &rest.Config{
			Host:            "https://" + net.JoinHostPort(os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")),
			BearerTokenFile: filepath.Join(dir, "token"),
			TLSClientConfig: rest.TLSClientConfig{CAFile: filepath.Join(dir, "ca.crt")},
		}
		return cfg, "in-cluster (HostProcess)", nil
	}
	if cfg, err := rest.InClusterConfig(); err == nil {
		return cfg, "in-cluster", nil
	}
	candidates := []string{}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		candidates = append(candidates, filepath.SplitList(env)...)
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".kube", "config"))
	}
	if runtime.GOOS == "windows" {
		candidates = append(candidates, `C:\k\config`, `C:\etc\kubernetes\kubelet.conf`)
	} else {
		candidates = append(candidates, "/etc/kubernetes/kubelet.conf", "/etc/kubernetes/admin.conf")
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		cfg, err := clientcmd.BuildConfigFromFlags("", c)
		if err != nil {
			return nil, c, fmt.Errorf("kubeconfig %s: %w", c, err)
		}
		return cfg, c, nil
	}
	return nil, "", nil
}

// Get sends a GET and returns the body of a 200 answer.
func (k *restKube) Get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.host+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%s: %w", path, errNotFound)
	}
	if resp.StatusCode != http.StatusOK {
		if line := hostexec.FirstLine(string(body)); line != "" {
			return nil, fmt.Errorf("%s: %s", resp.Status, line)
		}
		return nil, fmt.Errorf("%s (no reason given)", resp.Status)
	}
	return body, nil
}
