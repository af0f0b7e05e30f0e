package snapshot

import (
	"net/netip"
	"strings"
	"sync"
	"unsafe"

	"github.com/wincni/diag/manifest"
)

// Snapshot is one node as a bundle shows it.
type Snapshot struct {
	Source     string             `json:"source,omitempty"`     // the bundle path, for messages
	SourceKind string             `json:"sourceKind,omitempty"` // "zip", "directory" or "file"
	Format     string             `json:"format,omitempty"`     // FormatBundle, FormatCollectlogs or FormatLoose
	Manifest   *manifest.Manifest `json:"manifest,omitempty"`   // nil for hand-assembled bundles without one
	Facts      NodeFacts          `json:"facts"`

	Networks       []*Network       `json:"networks,omitempty"`
	Endpoints      []*Endpoint      `json:"endpoints,omitempty"`
	LoadBalancers  []*LoadBalancer  `json:"loadBalancers,omitempty"`
	Namespaces     []*Namespace     `json:"namespaces,omitempty"`
	Adapters       []*HostAdapter   `json:"adapters,omitempty"`
	Routes         []*HostRoute     `json:"routes,omitempty"`
	OS             *OSInfo          `json:"os,omitempty"`
	Firewall       *HostFirewall    `json:"firewall,omitempty"`
	HNSVersion     *HNSVersion      `json:"hnsVersion,omitempty"`  // hns/v2/globals.json
	HNSFeatures    *HNSFeatures     `json:"hnsFeatures,omitempty"` // hns/v2/features.json
	Logs           []*LogFile       `json:"logs,omitempty"`        // what logs/ says, as events
	PortRanges     *PortRanges      `json:"portRanges,omitempty"`
	KubeNodes      []*KubeNode      `json:"kubeNodes,omitempty"`
	Services       []*Service       `json:"services,omitempty"`
	EndpointSlices []*EndpointSlice `json:"endpointSlices,omitempty"`
	Pods           []*Pod           `json:"pods,omitempty"` // this node's, k8s/pods.json
	CalicoIPAM     *CalicoIPAM      `json:"calicoIPAM,omitempty"`
	KubeProxy      *KubeProxyConfig `json:"kubeProxy,omitempty"`
	CNIConfigs     []*CNIConfig     `json:"cniConfigs,omitempty"` // in the order the runtime reads them
	Flannel        *FlannelNetConf  `json:"flannel,omitempty"`
	VFPPorts       []*VFPPort       `json:"vfpPorts,omitempty"`
	HNSDiag        []HNSDiagObject  `json:"hnsdiag,omitempty"`
	Linux          *LinuxNet        `json:"linux,omitempty"`

	// Inputs maps each input that was present to the file it came from;
	// rules declare the inputs they need and are skipped without them.
	Inputs map[Input]string `json:"inputs,omitempty"`
	// Notes are things the parsers noticed but could not act on (a V1/V2
	// disagreement, an object without an ID); reports show them.
	Notes []string `json:"notes,omitempty"`
	// Unjudged says why this input cannot be called healthy whatever the
	// rules found: it lacks the state they judge (a Windows bundle without
	// HNS state). Empty when it has it.
	Unjudged string `json:"unjudged,omitempty"`

	self *KubeNode // SelfKubeNode, indexed by Derive
	// slicesByService indexes EndpointSlices by "namespace/service" (SlicesOf).
	slicesByService map[string][]*EndpointSlice
	// lbsByVIP indexes lbsIndexed, the LoadBalancers when it was made, by
	// frontend VIP (LoadBalancersByVIP); epsByID the Endpoints by ID
	// (EndpointsByID).
	lbsByVIP    map[string][]*LoadBalancer
	lbsIndexed  []*LoadBalancer
	epsByID     *EndpointIndex
	selfIndexed bool
}

// PseudonymKey is the ID of the key diag bundle anonymize replaced this
// input's addresses and names with, "" for an original.
func (s *Snapshot) PseudonymKey() string {
	if s.Manifest == nil {
		return ""
	}
	return s.Manifest.Options["anonymize.key-id"]
}

// Input names a kind of data a rule can need.
type Input string

// The inputs a bundle can provide.
const (
	InputHNSNetworks      Input = "hns-networks"
	InputHNSEndpoints     Input = "hns-endpoints"
	InputHNSLoadBalancers Input = "hns-loadbalancers"
	InputHNSNamespaces    Input = "hns-namespaces"
	InputHostAdapters     Input = "host-adapters"
	InputHostRoutes       Input = "host-routes"
	InputOS               Input = "host-os"
	InputKubeNodes        Input = "k8s-nodes"
	InputKubeServices     Input = "k8s-services"
	InputKubeProxy        Input = "kube-proxy-config"
	InputVFP              Input = "vfp"
	InputLinux            Input = "linux-net"
	InputCNIConfig        Input = "cni-config"
	InputFlannelConfig    Input = "flannel-config"
	InputFirewall         Input = "host-firewall"
	InputPortRanges       Input = "host-portranges"
	InputEndpointSlices   Input = "k8s-endpointslices"
	InputCalicoIPAM       Input = "calico-ipam"
	InputLogs             Input = "component-logs"
	InputKubePods         Input = "k8s-pods"
)

// InputFiles says what provides each input, for skip reasons.
var InputFiles = map[Input]string{
	InputHNSNetworks:      "HNS networks (hns/v*/networks.json, Get-HnsNetwork output)",
	InputHNSEndpoints:     "HNS endpoints (hns/v*/endpoints.json, Get-HnsEndpoint output)",
	InputHNSLoadBalancers: "HNS load balancers (hns/v2/loadbalancers.json, hns/v1/policylists.json)",
	InputHNSNamespaces:    "HNS namespaces (hns/v2/namespaces.json)",
	InputHostAdapters:     "host adapters (host/adapters.json, ipconfig /all)",
	InputHostRoutes:       "host routes (host/routes.json, route print)",
	InputOS:               "OS build (host/os.json)",
	InputKubeNodes:        "Kubernetes Nodes (k8s/nodes.json)",
	InputKubeServices:     "Kubernetes Services (k8s/services.json)",
	InputKubeProxy:        "kube-proxy flags (config/kube-proxy/cmdline.txt)",
	InputVFP:              "VFP ports and rules (vfp/, vfpctrl output)",
	InputLinux:            "Linux network state (linux/*.json: ip -j, bridge -j)",
	InputCNIConfig:        "CNI configuration (config/cni/*.conf, *.conflist)",
	InputFlannelConfig:    "flannel net-conf.json (config/flannel/net-conf.json)",
	InputFirewall:         "Windows Firewall profiles and rules (host/firewall.json)",
	InputPortRanges:       "excluded and dynamic port ranges (host/portranges.json)",
	InputEndpointSlices:   "Kubernetes EndpointSlices (k8s/endpointslices.json)",
	InputCalicoIPAM:       "Calico IPAM blocks and configuration (k8s/calico-ipamblocks.json, k8s/calico-ipamconfigs.json)",
	InputLogs:             "kube-proxy, CNI, flannel or Calico logs (logs/)",
	InputKubePods:         "Pods of this node (k8s/pods.json)",
}

// Has reports whether an input was present.
func (s *Snapshot) Has(in Input) bool {
	_, ok := s.Inputs[in]
	return ok
}

// NodeName is the node's name as the facts derive it.
func (s *Snapshot) NodeName() string { return s.Facts.Name.Value }

// Ref points back at the raw object a model object was built from.
type Ref struct {
	File  string `json:"file,omitempty"` // bundle entry
	Index int    `json:"index"`          // position in the file's array
}

// Network types as HNS spells them; comparisons are case-insensitive and the
// parser normalizes to these.
const (
	TypeNAT         = "NAT"
	TypeOverlay     = "Overlay"
	TypeL2Bridge    = "L2Bridge"
	TypeL2Tunnel    = "L2Tunnel"
	TypeTransparent = "Transparent"
	TypeICS         = "ICS"
	TypePrivate     = "Private"
	// TypeUnknown: the source did not show the type (a pasted Format-List
	// record cut before its Type line). Rules must not guess it.
	TypeUnknown = ""
)

// Network is an HNS network.
type Network struct {
	ID   string `json:"id,omitempty"` // upper-case GUID
	Name string `json:"name,omitempty"`
	Type string `json:"type,omitempty"` // one of the Type* constants, or as found

	// ManagementIP is the address the vSwitch is bound to: V1 ManagementIP,
	// V2 ProviderAddress policy. It is the VTEP address peers encapsulate to.
	ManagementIP      netip.Addr `json:"managementIP,omitzero"`
	ManagementIPFile  string     `json:"managementIPFile,omitempty"` // the file and field it was read from
	ManagementIPField string     `json:"managementIPField,omitempty"`
	V1ManagementIP    netip.Addr `json:"v1ManagementIP,omitzero"`
	V2ProviderAddress netip.Addr `json:"v2ProviderAddress,omitzero"`

	DrMAC       string      `json:"drMAC,omitempty"` // DistributedRouter MAC, normalized (see NormalizeMAC)
	Flags       int64       `json:"flags,omitempty"`
	AdapterName string      `json:"adapterName,omitempty"`
	LayeredOn   string      `json:"layeredOn,omitempty"`
	Extensions  []Extension `json:"extensions,omitempty"`

	Subnets            []Subnet            `json:"subnets,omitempty"`
	RemoteSubnetRoutes []RemoteSubnetRoute `json:"remoteSubnetRoutes,omitempty"`
	HostRoute          bool                `json:"hostRoute"`
	VxlanPort          int                 `json:"vxlanPort,omitempty"`
	Policies           []Policy            `json:"policies,omitempty"`

	Refs    []Ref    `json:"refs,omitempty"`    // V2 and/or V1 objects merged into this one
	Unknown []string `json:"unknown,omitempty"` // fields the source hid (see Knows)
}

// Extension is a vSwitch extension as V1 reports it.
type Extension struct {
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	Enabled bool   `json:"enabled"`
}

// Subnet is one of a network's address spaces.
type Subnet struct {
	Prefix  netip.Prefix `json:"prefix,omitzero"`
	Gateway netip.Addr   `json:"gateway,omitzero"`
	VSID    int64        `json:"vsid,omitempty"` // VXLAN network identifier; 0 when not set
}

// RemoteSubnetRoute tells HNS to encapsulate traffic for a remote pod subnet
// to the ProviderAddress (the remote node's VTEP) with the remote DR MAC as
// inner destination.
type RemoteSubnetRoute struct {
	DestinationPrefix netip.Prefix `json:"destinationPrefix,omitzero"`
	ProviderAddress   netip.Addr   `json:"providerAddress,omitzero"`
	DrMAC             string       `json:"drMAC,omitempty"`
	IsolationID       int64        `json:"isolationID,omitempty"`
	Index             int          `json:"index"` // position among the network's policies
}

// Policy is any policy, kept generically: Type plus its settings (V1 flat
// keys, or the V2 Settings object).
type Policy struct {
	Type     string         `json:"type,omitempty"`
	Settings map[string]any `json:"settings,omitempty"`
}

// Endpoint is an HNS endpoint: a pod's vNIC (local) or a remote pod or
// service address programmed for encapsulation (remote).
//
// What every endpoint has apart is held here; the rest is in
// EndpointDetail, whose fields read as the endpoint's own. A large
// cluster's bundle holds tens of thousands of remote endpoints, which
// differ in little but their IDs, names, addresses and MACs: they share a
// handful of details (their network's name, their ProviderAddress-only
// policy list), and an endpoint is 152 bytes instead of 416. Write a
// detail field only through Detail, or DetailCopy and SetDetail. The JSON keeps the
// order the fields have always had (MarshalJSON).
type Endpoint struct {
	ID        string     `json:"id,omitempty"`
	Name      string     `json:"name,omitempty"`
	NetworkID string     `json:"networkID,omitempty"`
	IP        netip.Addr `json:"ip,omitzero"`
	MAC       string     `json:"mac,omitempty"`
	IsRemote  bool       `json:"isRemote"`
	// ProviderAddress is the PA policy: on a local overlay endpoint the
	// node's own management IP, on a remote one the node hosting the IP.
	ProviderAddress netip.Addr `json:"providerAddress,omitzero"`
	Refs            []Ref      `json:"refs,omitempty"`
	*EndpointDetail
}

// EndpointDetail is what an endpoint holds beyond its ID, network ID,
// addresses and MAC (see Endpoint).
type EndpointDetail struct {
	NetworkName string   `json:"-"` // in Endpoint's JSON, in its place
	Policies    []Policy `json:"-"`
	// Unknown leads the rest so that the JSON keeps Endpoint's order
	// (refs, unknown, ipv6, ...): an endpoint seldom has unknown fields.
	Unknown []string `json:"unknown,omitempty"`
	// IPv6 is a dual-stack endpoint's second address (IP is the IPv4 one).
	IPv6         netip.Addr   `json:"ipv6,omitzero"`
	PrefixLength int          `json:"prefixLength,omitempty"`
	Gateway      netip.Addr   `json:"gateway,omitzero"`
	State        int64        `json:"state,omitempty"` // V1 state; 0 when unknown
	OutboundNAT  *OutboundNAT `json:"outboundNAT,omitempty"`
	// NATDestinations come from Destinations-only OutBoundNAT policies
	// (loopback DSR, DNS SNAT).
	NATDestinations []string        `json:"natDestinations,omitempty"`
	Routes          []EndpointRoute `json:"routes,omitempty"`
	DNSServers      []string        `json:"dnsServers,omitempty"`
	DNSSuffixes     []string        `json:"dnsSuffixes,omitempty"`
	NamespaceID     string          `json:"namespaceID,omitempty"`
	VFPPortID       string          `json:"vfpPortID,omitempty"`
}

// noEndpointDetail is the detail of every endpoint that has none. It is
// shared, so it is never written (Detail gives an endpoint its own first).
var noEndpointDetail = &EndpointDetail{}

// Detail returns e's own detail, to write: a copy when e shares one.
func (e *Endpoint) Detail() *EndpointDetail {
	switch d := e.EndpointDetail; {
	case d == nil || d == noEndpointDetail:
		e.EndpointDetail = &EndpointDetail{}
	case sharedDetail(d):
		own := *d
		e.EndpointDetail = &own
	}
	return e.EndpointDetail
}

// DetailCopy is a copy of e's detail (an empty one when e has none), to
// change and give back through SetDetail, which shares it again when it
// can: Detail would give each of a list's remote endpoints a detail of its
// own, where a loader names their network or merges in their V1 State for
// all of them. The copy stays on the caller's stack. A copy of an
// Endpoint holds the original's detail: give it its own this way before
// changing it.
func (e *Endpoint) DetailCopy() EndpointDetail {
	if e.EndpointDetail == nil {
		return EndpointDetail{}
	}
	return *e.EndpointDetail
}

// SetDetail gives e a copy of d, or a shared detail when d holds nothing
// or only what the remote endpoints of a list hold alike (their State,
// PrefixLength, network name and ProviderAddress-only policy list): a
// parser builds d on its stack, and only an endpoint with a detail of its
// own costs an allocation for it (tens of thousands of remote endpoints in
// a large cluster share a handful).
func (e *Endpoint) SetDetail(d *EndpointDetail) {
	if d.empty() {
		e.EndpointDetail = noEndpointDetail
		return
	}
	if k, ok := d.scalarKey(); ok {
		e.EndpointDetail = shareDetail(k, d)
		return
	}
	own := *d
	e.EndpointDetail = &own
}

// providerAddressOnly are the policy lists of a remote endpoint whose only
// policy is its ProviderAddress, once for all of them (V2 and V1 spell the
// type differently). Read-only; their capacity makes an append copy them.
var providerAddressOnly = [...][]Policy{{{Type: "ProviderAddress"}}, {{Type: "PA"}}}

// ProviderAddressOnly is the shared policy list of a remote endpoint whose
// only policy is a ProviderAddress of type typ; a detail holding it can be
// shared.
func ProviderAddressOnly(typ string) ([]Policy, bool) {
	for _, l := range providerAddressOnly {
		if l[0].Type == typ {
			return l, true
		}
	}
	return nil, false
}

// detailKey is the whole of a detail that SetDetail shares: a network
// name, numbers, addresses, a shared policy list (ProviderAddressOnly) and
// a shared list of unknown fields (ShareUnknown) at most. Such details are few in any bundle, so that the bounded table
// of them is not filled with details of one endpoint each.
type detailKey struct {
	NetworkName   string
	policies      *Policy
	nPolicies     int
	unknown       *string // a list ShareUnknown keeps
	nUnknown      int
	IPv6, Gateway netip.Addr
	PrefixLength  int
	State         int64
}

// maxSharedDetails bounds the shared details; past it each endpoint gets
// its own, as before.
const maxSharedDetails = 256

// sharedDetails are the details SetDetail shares, by their content; they
// are never written (Detail copies them first). Loads run side by side.
var sharedDetails struct {
	sync.Mutex
	m map[detailKey]*EndpointDetail
}

func (d *EndpointDetail) scalarKey() (detailKey, bool) {
	if d.Policies != nil && !sharedPolicies(d.Policies) || d.Unknown != nil && !sharedUnknownList(d.Unknown) ||
		d.OutboundNAT != nil || d.NATDestinations != nil || d.Routes != nil || d.DNSServers != nil || d.DNSSuffixes != nil ||
		d.NamespaceID != "" || d.VFPPortID != "" {
		return detailKey{}, false
	}
	return detailKey{NetworkName: d.NetworkName, policies: unsafe.SliceData(d.Policies), nPolicies: len(d.Policies),
		unknown: unsafe.SliceData(d.Unknown), nUnknown: len(d.Unknown),
		IPv6: d.IPv6, Gateway: d.Gateway, PrefixLength: d.PrefixLength, State: d.State}, true
}

// sharedPolicies says whether list is one of providerAddressOnly.
func sharedPolicies(list []Policy) bool {
	for _, l := range providerAddressOnly {
		if unsafe.SliceData(list) == unsafe.SliceData(l) && len(list) == len(l) {
			return true
		}
	}
	return false
}

func shareDetail(k detailKey, d *EndpointDetail) *EndpointDetail {
	sharedDetails.Lock()
	defer sharedDetails.Unlock()
	if p, ok := sharedDetails.m[k]; ok {
		return p
	}
	own := *d
	if len(sharedDetails.m) < maxSharedDetails {
		if sharedDetails.m == nil {
			sharedDetails.m = map[detailKey]*EndpointDetail{}
		}
		sharedDetails.m[k] = &own
	}
	return &own
}

// sharedDetail says whether d is one of the shared details.
func sharedDetail(d *EndpointDetail) bool {
	k, ok := d.scalarKey()
	if !ok {
		return false
	}
	sharedDetails.Lock()
	defer sharedDetails.Unlock()
	return sharedDetails.m[k] == d
}

// SharedDetailIntact says whether the shared details still hold what they
// were shared for: the tests' guard against a write that did not go
// through Detail.
func SharedDetailIntact() bool {
	if !noEndpointDetail.empty() {
		return false
	}
	sharedDetails.Lock()
	defer sharedDetails.Unlock()
	for k, d := range sharedDetails.m {
		if dk, ok := d.scalarKey(); !ok || dk != k {
			return false
		}
	}
	return true
}

func (d *EndpointDetail) empty() bool {
	return d.NetworkName == "" && d.Policies == nil && d.Unknown == nil && !d.IPv6.IsValid() && d.PrefixLength == 0 && !d.Gateway.IsValid() && d.State == 0 && d.OutboundNAT == nil &&
		d.NATDestinations == nil && d.Routes == nil && d.DNSServers == nil && d.DNSSuffixes == nil && d.NamespaceID == "" && d.VFPPortID == ""
}

// OutboundNAT is an endpoint's SNAT policy.
type OutboundNAT struct {
	VIP          string   `json:"vip,omitempty"`
	Exceptions   []string `json:"exceptions,omitempty"`
	Destinations []string `json:"destinations,omitempty"`
}

// EndpointRoute is a ROUTE (V1) / SDNRoute (V2) endpoint policy.
type EndpointRoute struct {
	DestinationPrefix string `json:"destinationPrefix,omitempty"`
	NeedEncap         bool   `json:"needEncap"`
}

// LoadBalancer is a V2 HostComputeLoadBalancer or a V1 ELB policy list.
type LoadBalancer struct {
	ID           string        `json:"id,omitempty"`
	SourceVIP    string        `json:"sourceVIP,omitempty"`
	FrontendVIPs []string      `json:"frontendVIPs,omitempty"`
	EndpointIDs  EndpointIDs   `json:"endpointIDs,omitzero"`
	PortMappings []PortMapping `json:"portMappings,omitempty"`
	Flags        int64         `json:"flags,omitempty"` // 1 DSR, 2 IPv6
	State        int64         `json:"state,omitempty"` // V1 policy list state; 0 when unknown
	Ref          Ref           `json:"ref,omitempty"`
	Unknown      []string      `json:"unknown,omitempty"`
}

// PortMapping is one frontend→backend port of a load balancer.
type PortMapping struct {
	Protocol         int64 `json:"protocol,omitempty"` // 6 TCP, 17 UDP
	InternalPort     int64 `json:"internalPort,omitempty"`
	ExternalPort     int64 `json:"externalPort,omitempty"`
	DistributionType int64 `json:"distributionType,omitempty"`
	Flags            int64 `json:"flags,omitempty"`
}

// Namespace is an HNS (network compartment) namespace.
type Namespace struct {
	ID            string   `json:"id,omitempty"`
	CompartmentID int64    `json:"compartmentID,omitempty"`
	Type          string   `json:"type,omitempty"`
	EndpointIDs   []string `json:"endpointIDs,omitempty"`
	Ref           Ref      `json:"ref,omitempty"`
	Unknown       []string `json:"unknown,omitempty"`
}

// HostAdapter is a host network adapter with its addresses.
type HostAdapter struct {
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	IfIndex     int64          `json:"ifIndex,omitempty"`
	MAC         string         `json:"mac,omitempty"`
	MTU         int64          `json:"mtu,omitempty"`
	Status      string         `json:"status,omitempty"`
	Addresses   []netip.Prefix `json:"addresses,omitempty"` // address with its on-link prefix length
	Gateways    []netip.Addr   `json:"gateways,omitempty"`
}

// HostRoute is one entry of the host routing table.
type HostRoute struct {
	Destination netip.Prefix `json:"destination,omitzero"`
	NextHop     netip.Addr   `json:"nextHop,omitzero"`
	IfIndex     int64        `json:"ifIndex,omitempty"`
	Interface   string       `json:"interface,omitempty"`
	Metric      int64        `json:"metric,omitempty"`
}

// OSInfo is the host's OS build.
type OSInfo struct {
	Hostname string `json:"hostname,omitempty"`
	// HostnameFrom is the file and field the host name was read from.
	HostnameFrom string   `json:"hostnameFrom,omitempty"`
	ProductName  string   `json:"productName,omitempty"`
	Build        int64    `json:"build,omitempty"`
	UBR          int64    `json:"ubr,omitempty"`
	Version      string   `json:"version,omitempty"`
	Hotfixes     []string `json:"hotfixes,omitempty"`
}

// KubeNode is a Kubernetes Node as the API server has it.
type KubeNode struct {
	Name        string         `json:"name,omitempty"`
	OS          string         `json:"os,omitempty"` // kubernetes.io/os label or nodeInfo.operatingSystem
	InternalIPs []netip.Addr   `json:"internalIPs,omitempty"`
	ExternalIPs []netip.Addr   `json:"externalIPs,omitempty"`
	PodCIDRs    []netip.Prefix `json:"podCIDRs,omitempty"`
	Annotations Pairs          `json:"annotations,omitempty"`
	Ready       bool           `json:"ready"`
}

// Well-known node annotations that carry overlay data.
const (
	AnnotationFlannelBackendData = "flannel.alpha.coreos.com/backend-data"
	AnnotationFlannelBackendType = "flannel.alpha.coreos.com/backend-type"
	AnnotationFlannelPublicIP    = "flannel.alpha.coreos.com/public-ip"
	AnnotationCalicoVXLANAddr    = "projectcalico.org/IPv4VXLANTunnelAddr"
	AnnotationCalicoVXLANMAC     = "projectcalico.org/VXLANTunnelMACAddr"
	AnnotationCalicoIPv4Address  = "projectcalico.org/IPv4Address"
)

// Service is a Kubernetes Service.
type Service struct {
	Namespace             string        `json:"namespace,omitempty"`
	Name                  string        `json:"name,omitempty"`
	Type                  string        `json:"type,omitempty"`
	ClusterIPs            []string      `json:"clusterIPs,omitempty"`
	Ports                 []ServicePort `json:"ports,omitempty"`
	ExternalTrafficPolicy string        `json:"externalTrafficPolicy,omitempty"`
	InternalTrafficPolicy string        `json:"internalTrafficPolicy,omitempty"`
	// HealthCheckNodePort is the port kube-proxy answers a load balancer's
	// health probe on for an externalTrafficPolicy Local Service.
	HealthCheckNodePort int `json:"healthCheckNodePort,omitempty"`
	// LoadBalancerClass names a load balancer other than the cloud
	// provider's (MetalLB, an AWS NLB controller...).
	LoadBalancerClass string `json:"loadBalancerClass,omitempty"`
	// Ingress says the load balancer has an address (status.loadBalancer).
	Ingress bool `json:"ingress,omitempty"`
	// ExternalIPs are spec.externalIPs and the load balancer ingress IPs.
	ExternalIPs []string `json:"externalIPs,omitempty"`
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name       string `json:"name,omitempty"`
	Protocol   string `json:"protocol,omitempty"`
	Port       int64  `json:"port,omitempty"`
	TargetPort string `json:"targetPort,omitempty"`
	NodePort   int64  `json:"nodePort,omitempty"`
}

// KubeProxyConfig is what kube-proxy was started with.
type KubeProxyConfig struct {
	Source      string            `json:"source,omitempty"`
	Flags       map[string]string `json:"flags,omitempty"` // flag name without dashes → value
	NetworkName string            `json:"networkName,omitempty"`
	SourceVIP   string            `json:"sourceVIP,omitempty"`
	ClusterCIDR string            `json:"clusterCIDR,omitempty"`
	EnableDSR   bool              `json:"enableDSR"`
	Hostname    string            `json:"hostname,omitempty"`
}

// Knows reports whether a field's value was fully visible in the source.
// PowerShell's Format-List prints System.Object[] for nested arrays and cuts
// long lists short; rules must not conclude from what was not shown.
func (n *Network) Knows(field string) bool { return knows(n.Unknown, field) }

// Knows reports whether a field's value was fully visible in the source.
func (e *Endpoint) Knows(field string) bool { return knows(e.Unknown, field) }

func knows(unknown []string, field string) bool {
	for _, u := range unknown {
		if u == field || strings.HasPrefix(u, field+" ") {
			return false
		}
	}
	return true
}

// IsLinuxNode reports an input from a Linux node, where the Windows (HNS,
// VFP) rules do not apply.
func (s *Snapshot) IsLinuxNode() bool {
	if s.Manifest != nil && strings.EqualFold(s.Manifest.OS, "linux") {
		return true
	}
	return s.Linux != nil && len(s.Networks) == 0 && len(s.Endpoints) == 0
}

// Knows reports whether a field's value was fully visible in the source.
func (lb *LoadBalancer) Knows(field string) bool { return knows(lb.Unknown, field) }

// Formats of input a snapshot is read from (formats.Load tells them apart).
const (
	FormatBundle      = "diag bundle"
	FormatCollectlogs = "collectlogs.ps1 output"
	FormatLoose       = "loose files"
)
