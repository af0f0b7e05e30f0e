// Package snapshot is the normalized model of one node's networking state,
// and the parsers that build it from the raw artifacts of a bundle (HNS v1
// and v2 JSON, host facts, Kubernetes lists). Rules only ever see this model.
package snapshot

import (
	"net/netip"
	"strings"

	"github.com/wincni/diag/bundle"
)

// Snapshot is one node as a bundle shows it.
type Snapshot struct {
	Source     string           // the bundle path, for messages
	SourceKind string           // "zip", "directory" or "file"
	Format     string           // FormatBundle, FormatCollectlogs or FormatLoose
	Manifest   *bundle.Manifest // nil for hand-assembled bundles without one
	Facts      NodeFacts

	Networks      []*Network
	Endpoints     []*Endpoint
	LoadBalancers []*LoadBalancer
	Namespaces    []*Namespace
	Adapters      []*HostAdapter
	Routes        []*HostRoute
	OS            *OSInfo
	KubeNodes     []*KubeNode
	Services      []*Service
	KubeProxy     *KubeProxyConfig

	// Inputs maps each input that was present to the file it came from;
	// rules declare the inputs they need and are skipped without them.
	Inputs map[Input]string
	// Notes are things the parsers noticed but could not act on (a V1/V2
	// disagreement, an object without an ID); reports show them.
	Notes []string
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
	File  string // bundle entry
	Index int    // position in the file's array
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
)

// Network is an HNS network.
type Network struct {
	ID   string // upper-case GUID
	Name string
	Type string // one of the Type* constants, or as found

	// ManagementIP is the address the vSwitch is bound to: V1 ManagementIP,
	// V2 ProviderAddress policy. It is the VTEP address peers encapsulate to.
	ManagementIP      netip.Addr
	ManagementIPFile  string // the file and field it was read from
	ManagementIPField string
	V1ManagementIP    netip.Addr
	V2ProviderAddress netip.Addr

	DrMAC       string // DistributedRouter MAC, normalized (see NormalizeMAC)
	Flags       int64
	AdapterName string
	LayeredOn   string
	Extensions  []Extension

	Subnets            []Subnet
	RemoteSubnetRoutes []RemoteSubnetRoute
	HostRoute          bool
	VxlanPort          int
	Policies           []Policy

	Refs    []Ref    // V2 and/or V1 objects merged into this one
	Unknown []string // fields the source hid (see Knows)
}

// Extension is a vSwitch extension as V1 reports it.
type Extension struct {
	ID      string
	Name    string
	Enabled bool
}

// Subnet is one of a network's address spaces.
type Subnet struct {
	Prefix  netip.Prefix
	Gateway netip.Addr
	VSID    int64 // VXLAN network identifier; 0 when not set
}

// RemoteSubnetRoute tells HNS to encapsulate traffic for a remote pod subnet
// to the ProviderAddress (the remote node's VTEP) with the remote DR MAC as
// inner destination.
type RemoteSubnetRoute struct {
	DestinationPrefix netip.Prefix
	ProviderAddress   netip.Addr
	DrMAC             string
	IsolationID       int64
	Index             int // position among the network's policies
}

// Policy is any policy, kept generically: Type plus its settings (V1 flat
// keys, or the V2 Settings object).
type Policy struct {
	Type     string
	Settings map[string]any
}

// Endpoint is an HNS endpoint: a pod's vNIC (local) or a remote pod or
// service address programmed for encapsulation (remote).
type Endpoint struct {
	ID           string
	Name         string
	NetworkID    string
	NetworkName  string
	IP           netip.Addr
	PrefixLength int
	MAC          string
	Gateway      netip.Addr
	IsRemote     bool
	State        int64 // V1 state; 0 when unknown
	// ProviderAddress is the PA policy: on a local overlay endpoint the
	// node's own management IP, on a remote one the node hosting the IP.
	ProviderAddress netip.Addr
	OutboundNAT     *OutboundNAT
	Routes          []EndpointRoute
	DNSServers      []string
	DNSSuffixes     []string
	NamespaceID     string
	VFPPortID       string
	Policies        []Policy
	Refs            []Ref
	Unknown         []string
}

// OutboundNAT is an endpoint's SNAT policy.
type OutboundNAT struct {
	VIP          string
	Exceptions   []string
	Destinations []string
}

// EndpointRoute is a ROUTE (V1) / SDNRoute (V2) endpoint policy.
type EndpointRoute struct {
	DestinationPrefix string
	NeedEncap         bool
}

// LoadBalancer is a V2 HostComputeLoadBalancer or a V1 ELB policy list.
type LoadBalancer struct {
	ID           string
	SourceVIP    string
	FrontendVIPs []string
	EndpointIDs  []string
	PortMappings []PortMapping
	Flags        int64 // 1 DSR, 2 IPv6
	State        int64 // V1 policy list state; 0 when unknown
	Ref          Ref
	Unknown      []string
}

// PortMapping is one frontend→backend port of a load balancer.
type PortMapping struct {
	Protocol         int64 // 6 TCP, 17 UDP
	InternalPort     int64
	ExternalPort     int64
	DistributionType int64
	Flags            int64
}

// Namespace is an HNS (network compartment) namespace.
type Namespace struct {
	ID            string
	CompartmentID int64
	Type          string
	EndpointIDs   []string
	Ref           Ref
	Unknown       []string
}

// HostAdapter is a host network adapter with its addresses.
type HostAdapter struct {
	Name        string
	Description string
	IfIndex     int64
	MAC         string
	MTU         int64
	Status      string
	Addresses   []netip.Prefix // address with its on-link prefix length
	Gateways    []netip.Addr
}

// HostRoute is one entry of the host routing table.
type HostRoute struct {
	Destination netip.Prefix
	NextHop     netip.Addr
	IfIndex     int64
	Interface   string
	Metric      int64
}

// OSInfo is the host's OS build.
type OSInfo struct {
	Hostname    string
	ProductName string
	Build       int64
	UBR         int64
	Version     string
	Hotfixes    []string
}

// KubeNode is a Kubernetes Node as the API server has it.
type KubeNode struct {
	Name        string
	OS          string // kubernetes.io/os label or nodeInfo.operatingSystem
	InternalIPs []netip.Addr
	ExternalIPs []netip.Addr
	PodCIDRs    []netip.Prefix
	Annotations map[string]string
	Ready       bool
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
	Namespace             string
	Name                  string
	Type                  string
	ClusterIPs            []string
	Ports                 []ServicePort
	ExternalTrafficPolicy string
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name       string
	Protocol   string
	Port       int64
	TargetPort string
	NodePort   int64
}

// KubeProxyConfig is what kube-proxy was started with.
type KubeProxyConfig struct {
	Source      string
	Flags       map[string]string // flag name without dashes → value
	NetworkName string
	SourceVIP   string
	ClusterCIDR string
	EnableDSR   bool
	Hostname    string
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
