package monitor

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// kubeCodecs know only the kinds the monitor reads and writes. client-go's
// typed clients register every API group of Kubernetes (their scheme
// package), which doubles diag's binary for four resources. They are built
// on first use, not at start: every diag command would pay for the scheme.
var kubeCodecs = sync.OnceValue(func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(corev1.AddToScheme(scheme))
	must(discoveryv1.AddToScheme(scheme))
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(scheme)
})

// restClientFor is a JSON client of one API group version.
func restClientFor(cfg *rest.Config, gv schema.GroupVersion) (*rest.RESTClient, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &gv
	c.APIPath = "/apis"
	if gv.Group == "" {
		c.APIPath = "/api"
	}
	c.NegotiatedSerializer = kubeCodecs().WithoutConversion()
	c.ContentType = runtime.ContentTypeJSON
	if c.UserAgent == "" {
		c.UserAgent = "diag-monitor"
	}
	return rest.RESTClientFor(c)
}

// EventAPI is what the Eventer needs of the API server: create an Event,
// count one up, and list the Events the monitor made on its Node (after a
// restart, to count them up rather than make them again).
type EventAPI interface {
	Create(ctx context.Context, ev *corev1.Event) (*corev1.Event, error)
	Patch(ctx context.Context, namespace, name string, mergePatch []byte) error
	List(ctx context.Context, namespace, node string) ([]corev1.Event, error)
}

// maxEventPages bounds the listing of the monitor's Events on its Node:
// its rate limit lets it make a few hundred within an Event's lifetime.
const maxEventPages = 4

// restEvents is EventAPI over the core/v1 REST client.
type restEvents struct{ c *rest.RESTClient }

// NewEventAPI is the API server's Events, from a REST config.
func NewEventAPI(cfg *rest.Config) (EventAPI, error) {
	// The Eventer's own limit bounds these calls; client-go's default
	// (5 a second) would only make a round wait behind its Events.
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = -1
	c, err := restClientFor(cfg, corev1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	return restEvents{c}, nil
}

func (r restEvents) Create(ctx context.Context, ev *corev1.Event) (*corev1.Event, error) {
	out := &corev1.Event{}
	err := r.c.Post().Namespace(ev.Namespace).Resource("events").Body(ev).Do(ctx).Into(out)
	return out, err
}

func (r restEvents) Patch(ctx context.Context, namespace, name string, mergePatch []byte) error {
	return r.c.Patch(types.MergePatchType).Namespace(namespace).Resource("events").Name(name).Body(mergePatch).Do(ctx).Error()
}

func (r restEvents) List(ctx context.Context, namespace, node string) ([]corev1.Event, error) {
	sel := fields.Set{"involvedObject.kind": "Node", "involvedObject.name": node, "source": eventComponent}.AsSelector().String()
	var out []corev1.Event
	cont := ""
	for range maxEventPages {
		list := &corev1.EventList{}
		req := r.c.Get().Namespace(namespace).Resource("events").Param("fieldSelector", sel).Param("limit", "500")
		if cont != "" {
			req = req.Param("continue", cont)
		}
		if err := req.Do(ctx).Into(list); err != nil {
			return nil, err
		}
		out = append(out, list.Items...)
		if cont = list.Continue; cont == "" {
			break
		}
	}
	return out, nil
}
