package collectors

import "context"

// HNSKind names a kind of HNS v2 object.
type HNSKind string

// The HNS v2 object kinds the Windows collector lists.
const (
	HNSNetworks      HNSKind = "networks"
	HNSEndpoints     HNSKind = "endpoints"
	HNSLoadBalancers HNSKind = "loadbalancers"
	HNSNamespaces    HNSKind = "namespaces"
	HNSRoutes        HNSKind = "routes"
)

// HNSSource answers HNS queries. It offers queries only, so that nothing
// reachable from diag collect can change HNS state (a test holds every
// implementation to that).
type HNSSource interface {
	// ListV2 returns a JSON array of every object of a kind exactly as HNS
	// returns it (the typed hcn.List* calls drop fields the rules need).
	// detailed sets the query's Detailed flag.
	ListV2(ctx context.Context, kind HNSKind, detailed bool) ([]byte, error)
	// GetV1 is HNSCall("GET", path): the response's Output, as JSON.
	GetV1(ctx context.Context, path string) ([]byte, error)
	// GetFeatures is hns/v2/features.json: the HNS version and the
	// features hcsshim's hcn package derives from it (GetGlobals,
	// GetSupportedFeatures), which is what kube-proxy, flannel and the
	// sdnoverlay CNI decide by.
	GetFeatures(ctx context.Context) ([]byte, error)
}

// KubeSource reads the Kubernetes API. It can only GET.
type KubeSource interface {
	// Get returns the body of a GET on an API path ("/api/v1/nodes").
	Get(ctx context.Context, path string) ([]byte, error)
}
