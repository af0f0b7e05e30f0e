package analyzers

// The false-positive guards many rules share, written once; each rule's
// declaration lists its guards (Rule.Guards) beside its check.

const (
	guardLinux    = "not applied to Linux nodes: they have no HNS"
	guardPodNet   = "only the pod network is checked: the CNI network the node's facts name, else every Overlay/L2Bridge network except the External bootstrap network"
	guardOverlay  = "only Overlay pod networks are checked (the External bootstrap network is never one)"
	guardHidden   = "values the input hid (System.Object[], a list or record cut short) are not judged"
	guardSelf     = "this node is never its own peer (recognised by name, its addresses, its tunnel address or its pod subnet)"
	guardLatest   = "several bundles of one node are times of it, not peers: only its latest bundle is compared with the other nodes"
	guardFlannel  = "not applied to a node known to run another network plugin"
	guardCalico   = "not applied to a node known to run another network plugin than Calico"
	guardPodLocal = "only local pod endpoints: remote endpoints, the source VIP, <network>_ep host endpoints and endpoints with neither OutBoundNAT nor DNS settings are not pods"
)
