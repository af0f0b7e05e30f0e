package snapshot

import (
	"time"
)

// LogEvent kinds: failures the components say in their own words.
const (
	LogUnauthorized    = "unauthorized"      // the API server refused the component's token
	LogStart           = "start"             // kube-proxy started ("Version info")
	LogPanic           = "panic"             // the process crashed
	LogNetworkNotFound = "network-not-found" // hcsshim NetworkNotFoundError: the HNS network the CNI wants is gone
	LogHNSNotFound     = "hns-element-not-found"
	LogHNSExists       = "hns-object-exists"
	LogProxyNoNetwork  = "proxy-network-missing" // kube-proxy cannot find its HNS network and removes its policies
	LogProxyPolicy     = "proxy-policy-failed"   // kube-proxy failed to create a load balancer or remote endpoint
	LogHNSEventError   = "hns-event-error"       // an Error in HNS's own event channels
	// LogPolicyRejected is HNS refusing an endpoint's policies
	// (0x803b000d): every pod sandbox with that configuration fails.
	LogPolicyRejected = "hns-policy-rejected"
)

// FileHNSEvents is where the collector keeps the HNS event channels.
const FileHNSEvents = "events/hns.json"

// LogFile is what diag read from one component log of the bundle: per
// kind, how often and where last; and how many lines the file has.
type LogFile struct {
	File      string               `json:"file"`
	Component string               `json:"component"` // kube-proxy, cni, flannel, calico
	Lines     int                  `json:"lines"`
	Events    map[string]*LogEvent `json:"events,omitempty"`
}

// LogEvent is one kind of event in a log: its count, and the last one.
type LogEvent struct {
	Count    int    `json:"count"`
	LastLine int    `json:"lastLine"`
	LastText string `json:"lastText"`
	// LastTime is when the last one happened, where the log says it with
	// a year (event channels); zero otherwise.
	LastTime time.Time `json:"lastTime,omitzero"`
	// Minutes are the klog times of the last starts (minutes into the
	// year: klog's header has no year), for telling a crash loop from
	// restarts months apart.
	Minutes []int `json:"minutes,omitempty"`
}
