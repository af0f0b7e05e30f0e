package cluster

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Target is the API server a collection talks to and how it was chosen.
type Target struct {
	Config  *rest.Config
	Context string // the kubeconfig context, or "in-cluster"
	Server  string
}

// LoadTarget reads credentials as kubectl does: --kubeconfig, else
// KUBECONFIG, else ~/.kube/config, with --context overriding the current
// context; in a pod without any of those, the pod's service account.
func LoadTarget(kubeconfig, context string) (*Target, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	raw, rawErr := cc.RawConfig()
	cfg, err := cc.ClientConfig()
	if err == nil {
		name := context
		if name == "" && rawErr == nil {
			name = raw.CurrentContext
		}
		return &Target{Config: cfg, Context: name, Server: cfg.Host}, nil
	}
	if kubeconfig == "" && context == "" && clientcmd.IsEmptyConfig(err) {
		if in, ierr := rest.InClusterConfig(); ierr == nil {
			return &Target{Config: in, Context: "in-cluster", Server: in.Host}, nil
		}
	}
	// client-go's advice to set KUBERNETES_MASTER is for its own old
	// flags, not diag's: left out.
	msg := strings.TrimSuffix(strings.TrimSpace(err.Error()), ", try setting KUBERNETES_MASTER environment variable")
	if kubeconfig != "" {
		return nil, fmt.Errorf("kubeconfig %s: %s", kubeconfig, msg)
	}
	return nil, fmt.Errorf("no Kubernetes credentials (--kubeconfig, KUBECONFIG, ~/.kube/config or a pod's service account): %s", msg)
}

// SilenceClientLogs sends what client-go logs (through klog: stream and
// WebSocket troubles, runtime.HandleError's "UnhandledError") nowhere: a
// collection reports each node's trouble once, in its result. klog's
// settings are the process's and are read without a lock by client-go's
// goroutines (a WebSocket heartbeat outlives its exec): they are set once.
func SilenceClientLogs() { silenceOnce.Do(silence) }

var silenceOnce sync.Once

func silence() {
	klog.SetLogger(logr.Discard())
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
}
