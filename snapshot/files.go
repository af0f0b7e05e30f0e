package snapshot

// Files of the bundle layout that formats.Load reads: the names evidence
// and notes give the reader.
const (
	FileV2Networks      = "hns/v2/networks.json"
	FileV2Endpoints     = "hns/v2/endpoints.json"
	FileV2LoadBalancers = "hns/v2/loadbalancers.json"
	FileV2Namespaces    = "hns/v2/namespaces.json"
	FileV1Networks      = "hns/v1/networks.json"
	FileV1Endpoints     = "hns/v1/endpoints.json"
	FileV1PolicyLists   = "hns/v1/policylists.json"
	FileAdapters        = "host/adapters.json"
	FileRoutes          = "host/routes.json"
	FileOS              = "host/os.json"
	FileKubeNodes       = "k8s/nodes.json"
	FileKubeServices    = "k8s/services.json"
	FileEndpointSlices  = "k8s/endpointslices.json"
	FileKubeProxyCmd    = "config/kube-proxy/cmdline.txt"
	FileFlannelNetConf  = "config/flannel/net-conf.json"
	FileFirewall        = "host/firewall.json"
	FilePortRanges      = "host/portranges.json"
)

// The Calico IPAM files (custom resources, Kubernetes datastore).
const (
	FileCalicoIPAMConfigs     = "k8s/calico-ipamconfigs.json"
	FileCalicoBlockAffinities = "k8s/calico-blockaffinities.json"
	FileCalicoIPAMBlocks      = "k8s/calico-ipamblocks.json"
)
