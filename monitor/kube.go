package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// KubeWatch holds the Kubernetes objects the per-node rules read, kept up
// to date by watches (client-go informers) instead of a list per round:
// this node's Pods, the Nodes (their pod CIDRs and VTEP annotations), the
// Services and the EndpointSlices, as kube-proxy itself watches them.
// Fields no rule reads (managed fields, a Node's image list) are dropped as
// objects arrive, to keep the monitor small on a large cluster.
type KubeWatch struct {
	Node      string
	informers []*kubeInformer
	rc        rest.Interface // the watches' client, for the liveness probe

	mu       sync.Mutex
	lastErr  error
	answered time.Time // when the API server last answered the probe
}

// probeTimeout bounds the liveness probe of a round.
const probeTimeout = 10 * time.Second

type kubeInformer struct {
	file     string
	kind     string
	informer cache.SharedIndexInformer
	gen      *atomic.Int64 // counts the changes the watch brought

	mu      *sync.Mutex
	data    []byte // the list as last encoded, at dataGen
	dataGen int64
}

// NewKubeWatch builds the watches from a REST config; Start runs them.
func NewKubeWatch(cfg *rest.Config, node string) (*KubeWatch, error) {
	rc, err := restClientFor(cfg, corev1.SchemeGroupVersion)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	disc, err := restClientFor(cfg, discoveryv1.SchemeGroupVersion)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	k := &KubeWatch{Node: node, rc: rc}
	k.add("k8s/pods.json", "PodList", cache.NewListWatchFromClient(rc, "pods", metav1.NamespaceAll, fields.OneTermEqualSelector("spec.nodeName", node)), &corev1.Pod{})
	k.add("k8s/nodes.json", "NodeList", cache.NewListWatchFromClient(rc, "nodes", metav1.NamespaceAll, fields.Everything()), &corev1.Node{})
	k.add("k8s/services.json", "ServiceList", cache.NewListWatchFromClient(rc, "services", metav1.NamespaceAll, fields.Everything()), &corev1.Service{})
	k.add("k8s/endpointslices.json", "EndpointSliceList", cache.NewListWatchFromClient(disc, "endpointslices", metav1.NamespaceAll, fields.Everything()), &discoveryv1.EndpointSlice{})
	return k, nil
}

func (k *KubeWatch) add(file, kind string, lw cache.ListerWatcher, example runtime.Object) {
	inf := cache.NewSharedIndexInformer(lw, example, 0, cache.Indexers{})
	_ = inf.SetTransform(slim)
	_ = inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) {
		k.mu.Lock()
		k.lastErr = fmt.Errorf("watch %s: %w", kind, err)
		k.mu.Unlock()
	})
	gen := &atomic.Int64{}
	bump := func(any) { gen.Add(1) }
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: bump, DeleteFunc: bump, UpdateFunc: func(_, o any) { bump(o) }})
	k.informers = append(k.informers, &kubeInformer{file: file, kind: kind, informer: inf, gen: gen, mu: &sync.Mutex{}})
}

// slim drops what no rule reads from an object before it is stored.
func slim(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	if n, ok := obj.(*corev1.Node); ok {
		n.Status.Images = nil
	}
	return obj, nil
}

// Start runs the watches until ctx ends; it does not wait for them to sync.
func (k *KubeWatch) Start(ctx context.Context) {
	for _, i := range k.informers {
		go i.informer.RunWithContext(ctx)
	}
}

// Err is nil when every watch has synced, none has failed since its
// last successful list and the API server answers, else why not.
//
// The reflectors retry a refused connection without a word (the
// WatchErrorHandler is not called), so an API server lost after the
// watches synced, or unreachable from the start, would read as answering
// or only as "not listed yet": Err asks the API server's /readyz through
// the watches' own client (a few bytes, no objects) to tell.
func (k *KubeWatch) Err() error {
	for _, i := range k.informers {
		if !i.informer.HasSynced() {
			k.mu.Lock()
			err := k.lastErr
			k.mu.Unlock()
			if err != nil {
				return err
			}
			if perr := k.probe(); perr != nil {
				return fmt.Errorf("%s not listed yet: %w", i.kind, perr)
			}
			return fmt.Errorf("%s not listed yet", i.kind)
		}
	}
	if perr := k.probe(); perr != nil {
		k.mu.Lock()
		since := k.answered
		k.mu.Unlock()
		stale := "the Kubernetes objects are those last seen (stale)"
		if !since.IsZero() {
			stale = fmt.Sprintf("the Kubernetes objects are those last seen, %s ago (stale)", time.Since(since).Round(time.Second))
		}
		return fmt.Errorf("%w; %s", perr, stale)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	err := k.lastErr
	k.lastErr = nil // a watch that failed once and resumed is reported once
	return err
}

// probe asks the API server whether it is there. An answer it may refuse
// (403: the cluster took /readyz from everyone, 404) still shows it is
// reachable; a refused or timed-out connection, a 401 or a 5xx does not.
func (k *KubeWatch) probe() error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	err := k.rc.Get().AbsPath("/readyz").Do(ctx).Error()
	if err == nil || apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
		k.mu.Lock()
		k.answered = time.Now()
		k.mu.Unlock()
		return nil
	}
	return fmt.Errorf("API server: %w", err)
}

// Lists are what the watches hold as the lists diag collect would have
// read (k8s/*.json); a watch not yet synced has none. A list is encoded
// again only when its watch brought a change since the last round.
func (k *KubeWatch) Lists() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, i := range k.informers {
		if !i.informer.HasSynced() {
			continue
		}
		gen := i.gen.Load()
		i.mu.Lock()
		if i.data == nil || i.dataGen != gen {
			data, err := listJSON(i.kind, i.informer.GetStore().List())
			if err != nil {
				i.mu.Unlock()
				return nil, err
			}
			i.data, i.dataGen = data, gen
		}
		out[i.file] = i.data
		i.mu.Unlock()
	}
	return out, nil
}

// listJSON is a List of the objects, in a stable order.
func listJSON(kind string, objs []any) ([]byte, error) {
	sort.Slice(objs, func(i, j int) bool {
		a, _ := objs[i].(metav1.Object)
		b, _ := objs[j].(metav1.Object)
		if a == nil || b == nil {
			return false
		}
		if a.GetNamespace() != b.GetNamespace() {
			return a.GetNamespace() < b.GetNamespace()
		}
		return a.GetName() < b.GetName()
	})
	return json.Marshal(struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Items      []any  `json:"items"`
	}{"v1", kind, objs})
}
