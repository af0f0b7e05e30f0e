package formats

import (
	"bytes"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// objectKind is what one HNS or Kubernetes object is, told from its keys:
// loose files and pasted text carry no file name that says so.
type objectKind int

const (
	kindUnknown objectKind = iota
	kindNetwork
	kindEndpoint
	kindLoadBalancer // V2 HostComputeLoadBalancer
	kindPolicyList   // V1 policy list
	kindNamespace
	kindKubeNode
	kindKubeService
	kindVFPPort
	kindLinux
)

func (k objectKind) String() string {
	return [...]string{"unknown", "HNS network", "HNS endpoint", "HNS load balancer", "HNS policy list",
		"HNS namespace", "Kubernetes Node", "Kubernetes Service", "VFP port", "Linux network object"}[k]
}

func classify(o obj) objectKind {
	x := keyedOf(o)
	has := x.hasAny
	switch kind := x.str("kind"); {
	case strings.EqualFold(kind, "Node"):
		return kindKubeNode
	case strings.EqualFold(kind, "Service"):
		return kindKubeService
	}
	switch {
	case has("FrontendVIPs", "HostComputeEndpoints", "PortMappings"):
		return kindLoadBalancer
	case has("References", "IsApplied") || hasPolicy(x, "ELB"):
		// IsApplied is a V1 policy list's alone: a list cut before its
		// References still has it.
		return kindPolicyList
	case has("IPAddress", "IpConfigurations", "VirtualNetwork", "IsRemoteEndpoint", "VirtualNetworkName"):
		return kindEndpoint
	case has("HostComputeNetwork") && has("MacAddress", "Dns", "HostComputeNamespace"):
		// V2 endpoints name their network so; so do V1 policy lists,
		// which a cut record may show without anything else of theirs.
		return kindEndpoint
	case has("ManagementIP", "Ipams", "Subnets", "DrMacAddress", "MacPools", "MacPool", "LayeredOn"):
		return kindNetwork
	case has("NamespaceId", "ResourceList", "CompartmentId", "NamespaceGuid"):
		return kindNamespace
	case x.child("metadata") != nil && x.child("spec") != nil:
		if x.child("status").list("addresses") != nil || x.child("spec").strs("podCIDR") != nil {
			return kindKubeNode
		}
		if x.child("spec").strs("clusterIP") != nil || x.child("spec").list("ports") != nil {
			return kindKubeService
		}
	}
	return kindUnknown
}

func hasPolicy(x keyed, kind string) bool {
	for _, p := range x.list("Policies") {
		// Only the type: policyOf would copy the settings.
		if strings.EqualFold(snapshot.Policy{Type: p.str("Type")}.Kind(), kind) {
			return true
		}
	}
	return false
}

// objectSet collects classified objects from any number of sources.
type objectSet struct {
	networks      []*snapshot.Network
	endpoints     []*snapshot.Endpoint
	loadBalancers []*snapshot.LoadBalancer
	namespaces    []*snapshot.Namespace
	kubeNodes     []*snapshot.KubeNode
	services      []*snapshot.Service
	vfpPorts      []*snapshot.VFPPort
	vfpByName     map[string]*snapshot.VFPPort
	linux         *snapshot.LinuxNet
	linuxFile     string
	linuxAddrFile string
	counts        map[objectKind]int

	// From console text given loose: host adapters and routes, hnsdiag's
	// listing, the HNS cmdlets that printed nothing, notes on what was
	// repaired or read in part, and the files that were recognised (an
	// empty result is recognised and adds nothing).
	adapters     []*snapshot.HostAdapter
	adaptersFile string
	hostname     string
	routes       []*snapshot.HostRoute
	routesFile   string
	hnsdiag      []snapshot.HNSDiagObject
	hnsdiagFile  string
	empty        []string
	notes        []string
	recognised   map[string]bool
	// hint is the kind of the objects being added when their source says
	// it (a table after a `Get-HnsNetwork | Select` prompt): a table of
	// Name and Type shows nothing else that tells a network.
	hint objectKind
	// binary names the files that are no text (images, executables,
	// archives), and binaryErr says what the last one is and what to do.
	binary    []string
	binaryErr error
	// networkIDs keeps one copy of each network ID the endpoints name.
	networkIDs stringSet
	// backendIDs keeps one copy of each endpoint ID the load balancers name.
	backendIDs snapshot.EndpointIDTable
	// indexBase is the position of the first object being added in its
	// file (streamed lists add one object at a time).
	indexBase int
}

func (set *objectSet) vfpIndex() map[string]*snapshot.VFPPort {
	if set.vfpByName == nil {
		set.vfpByName = map[string]*snapshot.VFPPort{}
	}
	return set.vfpByName
}

// add classifies and builds each object; it returns how many it recognised.
func (set *objectSet) add(objs []obj, file string) int {
	set.init()
	n := 0
	for i, o := range objs {
		if set.addKind(o, classify(o), i, file) {
			n++
		}
	}
	return n
}

// addKind builds o, the i-th object being added, classified as k (the
// set's hint when unknown); it reports whether it was recognised.
func (set *objectSet) addKind(o obj, k objectKind, i int, file string) bool {
	ref := snapshot.Ref{File: file, Index: set.indexBase + i}
	if k == kindUnknown {
		k = set.hint
	}
	switch k {
	case kindNetwork:
		set.networks = append(set.networks, networkOf(o, ref))
	case kindEndpoint:
		e := endpointOf(o, ref)
		e.NetworkID = set.networkIDs.get(e.NetworkID) // one copy for all of a network's endpoints
		set.endpoints = append(set.endpoints, e)
	case kindLoadBalancer:
		set.loadBalancers = append(set.loadBalancers, loadBalancerWith(o, ref, &set.backendIDs, nil))
	case kindPolicyList:
		set.loadBalancers = append(set.loadBalancers, policyListWith(o, ref, &set.backendIDs))
	case kindNamespace:
		set.namespaces = append(set.namespaces, namespaceOf(o, ref))
	case kindKubeNode:
		set.kubeNodes = append(set.kubeNodes, kubeNodeOf(o))
	case kindKubeService:
		set.services = append(set.services, serviceOf(o))
	default:
		return false
	}
	set.counts[k]++
	return true
}

func (set *objectSet) init() {
	if set.counts == nil {
		set.counts = map[objectKind]int{}
	}
	if set.recognised == nil {
		set.recognised = map[string]bool{}
	}
}

// looksLikeVFP recognises vfpctrl output by its envelope.
func looksLikeVFP(text []byte) bool {
	return bytes.Contains(text, []byte("ITEM LIST")) && bytes.Contains(text, []byte(" succeeded!")) ||
		bytes.Contains(text, []byte("Policy for port"))
}
