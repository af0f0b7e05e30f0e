package analyzers

// Grounding says, per rule, what upstream behaviour the rule checks (the
// component and its source file, and the function where it helps) and the
// false-positive guards the rule's check implements. docs/rules.md and
// `diag rules ID` print both (issue 13).
//
// Upstream entries name files that were read in the upstream repositories
// (kubernetes/kubernetes, flannel-io/flannel, projectcalico/calico,
// microsoft/hcsshim, microsoft/windows-container-networking, microsoft/SDN,
// containernetworking/plugins, kubernetes-sigs/sig-windows-tools); behaviour
// that lives inside Windows (HNS, VFP) and has no public source is named
// without a path. Guards describe what the check does, not what it should
// do: keep them in step with the rule's code.
type Grounding struct {
	Upstream []string
	Guards   []string
}

// Grounding is the rule's grounding; the zero Grounding when it has none.
func (r *Rule) Grounding() Grounding { return groundings[r.ID] }

// GroundingFor is the grounding of any rule ID diag documents, the capture
// rules (CAP-*, NAT-04) included.
func GroundingFor(id string) (Grounding, bool) {
	g, ok := groundings[id]
	return g, ok
}

// Guards shared by many rules.
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

var groundings = map[string]Grounding{
	// Calico.
	"CAL-01": {
		Upstream: []string{
			"Calico libcalico-go/lib/ipam/ipam.go (IPAMConfig strictAffinity: with false, hosts borrow addresses from blocks affine to other hosts)",
			"Calico node/pkg/lifecycle/startup/startup_windows.go ensureNetworkForOS (one block per Windows node, HostReservedAttr StartOfBlock 3 + EndOfBlock 1 reserved)",
			"Calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go (the HNS network's subnet is the node's block)",
		},
		Guards: []string{
			"only in a cluster with Windows nodes; " + guardCalico,
			"a Windows bundle judges only its own node's blocks, a Linux bundle every Windows node's",
			"the 4 addresses Calico reserves in a Windows block are not counted as free",
			"a full block and several blocks per node are warnings, not failures",
		},
	},
	"CAL-02": {
		Upstream: []string{
			"Calico felix/dataplane/windows/endpoint_mgr.go (rewrites a local endpoint's ACL policies on every policy, profile or IP set update)",
			"Calico felix/dataplane/windows/policysets/policysets.go (selectors expanded to one ACL rule per address)",
		},
		Guards: []string{
			guardCalico,
			"remote endpoints are not counted; only policies of type ACL are",
			"a warning: a reset burst needs a capture and Felix logs to prove",
		},
	},

	// Network policy.
	"POL-01": {
		Upstream: []string{
			"Calico felix/dataplane/windows/endpoint_mgr.go (ApplyACLPolicy on each local endpoint of the Calico network; rule Ids allow-host-to-endpoint, <policy>-<rule>-<n>, set where HNS supports AclRuleId; two Host rules and an Id-less default block)",
			"microsoft/hcsshim internal/hns/hnspolicy.go ACLPolicy (V1, with Id) and hcn/hcnpolicy.go AclPolicySetting (V2)",
			"microsoft/windows-container-networking cni/cni.go (allowAclPortMapping: an ACL per mapped port)",
			"Windows HNS/VFP: an endpoint's ACL policies become rules of its port's ACL_ENDPOINT_LAYER named after the ACL's Id (vfpctrl /port P /layer ACL_ENDPOINT_LAYER /list-rule, as Rancher's RKE2 notes and Azure NPM's debugging scripts read them)",
		},
		Guards: []string{
			"only local endpoints whose VFP port was dumped with its rules; a dump of one other layer only (a pasted /layer listing) is not judged",
			"endpoints whose policies the input hid are not judged",
			"ACLs of RuleType Host are the host firewall's (WFP), not VFP's, and are not counted (Felix adds two to every endpoint)",
			"ACL_ENDPOINT_LAYER and ACL_SUBNET_LAYER both count as the port's ACL rules",
			"ACLs without an Id (Felix's default block) are counted, not matched by name: only an ACL layer without any rule is reported for them",
			"rules are matched by Id only when some port of the node shows a rule named after an HNS ACL Id: an HNS that does not name rules by Id (Felix sets Ids only where HNS supports them) is judged by the rule count alone",
			"a VFP rule is taken for a stale policy only when its name is an ACL Id seen in HNS on this node or a Calico/NPM rule name; a stale rule is a warning",
			guardLinux,
		},
	},

	// Captures.
	"CAP-01": {
		Upstream: []string{
			"RFC 7348 (VXLAN encapsulation between VTEPs)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go handleSubnetEvents (each peer's pod subnet is a RemoteSubnetRoute HNS encapsulates to)",
			"Calico felix/dataplane/windows/vxlan_mgr.go (RemoteSubnetRoute per remote block)",
		},
		Guards: []string{
			"a flow that also appears encapsulated is not counted (pktmon logs decapsulated copies)",
			"traffic inside one pod subnet is not judged",
			"skipped when no pod subnet is known; without a bundle the subnets are the /24s (IPv6 /64s) of the tunnels' inner addresses",
		},
	},
	"CAP-02": {
		Upstream: []string{
			"RFC 793 (TCP three-way handshake), RFC 7348 (inner frames)",
		},
		Guards: []string{
			"copies of one packet (pktmon logs it at every component it crosses) are counted once",
			"a SYN is retransmitted only when sent again with another IP ID or 200 ms later; one SYN is not a failure",
			"a flow that saw any SYN-ACK is not reported",
		},
	},
	"CAP-03": {
		Upstream: []string{
			"RFC 7348 §5 (24-bit VNI)",
			"flannel pkg/backend/vxlan/vxlan_windows.go RegisterNetwork (VNI must be 4096 or more on Windows)",
		},
		Guards: []string{
			"skipped without an expected VNI (--vni, or a bundle with the network's VSID)",
		},
	},
	"CAP-04": {
		Upstream: []string{
			"RFC 7348 (outer addresses are the VTEPs)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute ProviderAddress = the peer lease's PublicIP)",
		},
		Guards: []string{
			"skipped without a bundle, or when the bundle knows no node address",
			"every ManagementIP, RemoteSubnetRoute ProviderAddress and Node InternalIP of the bundles counts as a node's address",
		},
	},
	"CAP-05": {
		Upstream: []string{
			"RFC 7348 (VTEPs must not fragment VXLAN packets)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (encapOverhead 50: pod MTU = interface MTU - 50)",
		},
		Guards: []string{
			"GSO and BIG TCP super-packets captured before segmentation are offload artefacts, not oversize",
			"the size check runs only with an MTU (--mtu or the bundle's); fragments are counted without one",
		},
	},
	"CAP-06": {
		Upstream: []string{
			"RFC 791, RFC 793, RFC 768, RFC 792 (IPv4, TCP, UDP, ICMP checksums)",
		},
		Guards: []string{
			"partial checksums left for the NIC (transmit offload) and super-packets are not errors",
			"packets captured shorter than they were on the wire are not checked",
			"of the large inner packets of a tunnel only the first 256 and then one in 8 are checked",
		},
	},
	"CAP-07": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (design note: Windows overlay decapsulates at layer 2 and needs the remote host's MAC; the DrMacAddress is published as VtepMAC)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute DistributedRouterMacAddress = the peer's VtepMAC)",
		},
		Guards: []string{
			"skipped without a bundle, or when the bundle has no DR MAC (no overlay network)",
			"broadcast and multicast destinations (ARP) and the MACs of local endpoints are fine",
			"VTEPs whose DR MAC the bundles do not give are not judged",
		},
	},
	"CAP-08": {
		Upstream: []string{
			"RFC 7348 §5 (8-byte header, I flag set)",
			"RFC 8926 (Geneve, UDP 6081); VXLAN-GPE (UDP 4790, P bit)",
		},
		Guards: []string{
			"a header cut by the capture's snap length is not malformed",
			"Geneve and VXLAN-GPE are recognised and noted, not reported as malformed VXLAN",
		},
	},
	"CAP-09": {
		Upstream: []string{
			"RFC 793 (RST), RFC 792 (destination unreachable, fragmentation needed), RFC 4443 (packet too big)",
			"Calico felix/dataplane/windows/endpoint_mgr.go (ACL reprogramming, see CAL-02)",
		},
		Guards: []string{
			"copies of one packet are counted once",
			"a warning: a reset may be a closed port or policy doing its job",
		},
	},
	"CAP-10": {
		Upstream: []string{
			"Microsoft-Windows-PktMon event 170 (dropped packet: DropReason, DropLocation, ComponentId), as microsoft/etl2pcapng src/main.c reads it",
			"the DropReason value map the relogged ETL file embeds (EventMetadata EVENT_MAP_INFO); DropLocation ranges of pktmonnpik.h PKTMON_DROP_LOCATION (0xE0006xxx VFP, 0xE0002xxx vSwitch)",
		},
		Guards: []string{
			"drops at NDIS or TCP/IP, and at vSwitch ports that are no container's or VM's, judged only with the bundles' pod subnets, and only their pod flows counted: the host drops its own traffic for many reasons",
			"broadcast and multicast drops (a port's packet filter turning away what it did not subscribe to) do not count",
			"a drop counts once per drop event, not per packet event of the same packet at other components",
		},
	},

	// DNS.
	"DNS-01": {
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go GetDNS (runtimeConfig dns servers replace the configuration's dns.Nameservers)",
			"microsoft/windows-container-networking cni/cni.go GetNetworkInfo (same for sdnoverlay/sdnbridge)",
			"kubelet clusterDNS: the kube-system/kube-dns Service's ClusterIP",
		},
		Guards: []string{
			"skipped without the kube-system/kube-dns Service",
			guardPodLocal,
			"endpoints without DNS servers, or whose DNSServerList the input hid, are not judged",
			"CNI configurations for the Windows NAT network are not judged",
			"only the first server must be the cluster DNS",
		},
	},
	"DNS-02": {
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go GetDNS (win-overlay/win-bridge: runtimeConfig searches replace dns.Search)",
			"microsoft/windows-container-networking cni/cni.go GetNetworkInfo (sdnoverlay/sdnbridge: the pod's namespace is prefixed to dns.Search[0]; runtimeConfig searches replace it)",
		},
		Guards: []string{
			"only pod endpoints: those on a network a Kubernetes network plugin names (flannel.<VNI>, vxlan0, cbr0, Calico, azure), or on any non-NAT network when something shows the host is a Kubernetes node; Docker's own Overlay (swarm) and L2Bridge networks are not pod networks",
			"containers on the Windows NAT network (Docker, ctr, containerd's nat plugin) are not pods and are not judged",
			"skipped on a host with no Kubernetes evidence (kube-proxy flags, pod-network CNI configuration, net-conf.json, a Node with its address) and no pod endpoint",
			"endpoints without DNS servers, or whose DNSSuffix the input hid, are not judged",
			"a warning: pods with dnsPolicy Default or None legitimately differ and pod specs are not in the bundle",
		},
	},

	// Endpoints.
	"EP-01": {
		Upstream: []string{
			"containernetworking/plugins pkg/hns/endpoint_windows.go (one HNS endpoint per sandbox, named <sandbox>_<network>)",
			"Windows HNS (local endpoints keep their address until the CNI DEL removes them)",
		},
		Guards: []string{
			"a remote endpoint sharing an address with a local one is SVC-06's business, not a duplicate here",
			"pod subnets with fewer than 3 or more than 12 host bits are not judged for fill",
			"network, gateway and broadcast addresses are not counted as usable; a subnet under 90% full is fine",
			"a nearly full subnet is a warning, not a failure",
			guardLinux,
		},
	},

	// flannel.
	"FLN-01": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go RegisterNetwork (defaults VNI 4096, Port 4789, MacPrefix 0E-2A; rejects VNI < 4096, Port != 4789, DirectRouting, GBP, MacPrefix not xx-xx; network name Backend.Name, else flannel.<VNI>)",
			"flannel pkg/backend/hostgw/hostgw_windows.go (L2Bridge network, default name cbr0)",
			"containernetworking/plugins plugins/main/windows/win-overlay/win-overlay_windows.go (looks the HNS network up by the configuration's name)",
			"kubernetes pkg/proxy/winkernel/hns.go getNetworkByName (kube-proxy's --network-name, else KUBE_NETWORK)",
			"sig-windows-tools hostprocess/flannel/flanneld/flannel-overlay.yml and hostprocess/flannel/kube-proxy/kube-proxy.yml (flannel.4096 in the CNI configuration and KUBE_NETWORK)",
		},
		Guards: []string{
			"names are compared ignoring case, as OVL-09 does: whether HNS does is not visible",
			guardFlannel + "; " + guardLinux,
			"an unset VNI or MacPrefix is fine: flannel's defaults (4096, 0E-2A) are valid",
			"the expected name follows flannel: Backend.Name, else flannel.<VNI> (VNI 4096 when unset) for vxlan, cbr0 for host-gw",
			"with HNS networks the network flannel really created is the reference (fail); without them the name net-conf.json gives is (warn)",
			"a net-conf.json name that differs from the network flanneld created is only noted (info)",
			"kube-proxy without --network-name reads KUBE_NETWORK from its environment, which the bundle does not hold: not judged",
			"the CNI configuration compared is the first readable non-NAT one, and only when it is flannel, win-overlay, sdnoverlay, win-bridge or sdnbridge (a NAT one read first is NAT-05's)",
			"the External bootstrap network is never taken for flannel's",
		},
	},
	"FLN-02": {
		Upstream: []string{
			"flannel pkg/backend/hostgw/hostgw_windows.go (L2Bridge network cbr0 and its <network>_ep bridge endpoint, host-attached)",
			"flannel pkg/backend/route_network_windows.go (a host route per peer pod subnet via the peer's PublicIP)",
		},
		Guards: []string{
			guardFlannel,
			"only flannel host-gw (L2Bridge) nodes; a node without one has no routes to miss",
			"only peers whose flannel backend-type annotation is host-gw; peers without an InternalIP are skipped",
			guardSelf,
			"the bridge endpoint is counted only with HNS endpoints in the bundle, and a wrong count is a warning",
		},
	},

	// Host.
	"HOST-01": {
		Upstream: []string{
			"Windows HNS/vSwitch (Overlay, L2Bridge and L2Tunnel forwarding is done by the VFP switch extension; NAT networks run without it)",
		},
		Guards: []string{
			"NAT, ICS and other network types are not checked: VFP is disabled on them by design",
			"networks whose extensions are not shown (HNS V2 output, hidden lists) are not judged",
			"VFP is matched by its GUIDs or by name, so localised extension names are recognised",
			"VFP as a filter extension (client SKU) is a warning",
			guardLinux,
		},
	},
	"HOST-02": {
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 EndpointStateTest, EndpointVfpPortStateTest",
			"Calico felix/dataplane/windows/endpoint_mgr.go RefreshHnsEndpointCache (Attached and AttachedSharing are the live states)",
		},
		Guards: []string{
			"endpoint State 3 (AttachedSharing, a running pod) is healthy, as is 2 (Attached); networkhealth.ps1 accepts only 3",
			"remote endpoints are not checked",
			"endpoints whose State is not shown (0) are not judged",
			"VFP ports whose Blocked value is not shown are not judged",
			guardLinux,
		},
	},
	"HOST-03": {
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 (VFP layers and rules per endpoint port, vfpctrl)",
			"microsoft/SDN Kubernetes/windows/debug/monitoring/strategies/CompareHnsAndVfpEndpoints.psm1",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (the RemoteSubnetRoutes HNS turns into encap rules)",
		},
		Guards: []string{
			"only local endpoints of Overlay pod networks",
			"VFP ports dumped without rules, and ports no endpoint owns, are not judged; skipped when no port is",
			"an encap rule whose destination (DIP) the dump does not show is not compared",
			"endpoints of another network are skipped",
			guardLinux,
		},
	},
	"HOST-04": {
		Upstream: []string{
			"kubernetes cmd/kube-proxy/app/server.go (node name: --hostname-override, else the host name lower-cased)",
			"kubernetes pkg/proxy/endpointslicecache.go (an endpoint is local when its nodeName is kube-proxy's host name)",
		},
		Guards: []string{
			"skipped when kube-proxy has no --hostname-override and the host name is not known",
			"the host name is lower-cased as kube-proxy does",
			"a name that is a Node of the cluster passes, unless another Node holds this host's addresses",
			guardLinux,
		},
	},
	"HOST-05": {
		Upstream: []string{
			"Windows HNS (OutBoundNAT sends pod traffic out through the vSwitch's adapter)",
			"Calico node/windows-packaging/CalicoWindows/config.ps1 (VXLAN_ADAPTER); flannel --iface (the adapter the network is created on)",
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (load balancers for Service external and ingress IPs)",
		},
		Guards: []string{
			"only Overlay, L2Bridge and L2Tunnel networks whose ManagementIP is on a host adapter (the rest is OVL-01's and OVL-10's)",
			"not judged when no other adapter (Up, or of unknown status) has a default route",
			"only external and ingress IPs that have an HNS load balancer",
			guardLinux,
		},
	},
	"HOST-08": {
		Upstream: []string{
			"Calico node/windows-packaging/CalicoWindows/node/node-service.ps1 (creates the OverlayTraffic4789UDP inbound rule with the External network)",
			"Windows Firewall (a matching block rule wins over allow rules)",
		},
		Guards: []string{
			"only nodes with an Overlay network",
			"disabled profiles and profiles whose default inbound action is Allow are not checked",
			"profiles are those of the overlay adapter's network category when known, else all",
			"the network's VxlanPort is used when set",
			"disabled, outbound and other-port rules are ignored",
			guardLinux,
		},
	},
	"HOST-09": {
		Upstream: []string{
			"microsoft/hcsshim hcn/hcnnetwork.go GetNetworkByName (a Name filter; the first match is returned)",
			"flannel pkg/backend/vxlan/device_windows.go (NetAdapterName network policy); Calico node-service.ps1 (New-HNSNetwork -AdapterName)",
		},
		Guards: []string{
			"networks without a name are not compared",
			"the adapter check runs only with host adapters in the bundle",
			"NAT, ICS and Private networks, and networks without NetworkAdapterName, are not judged for their adapter",
			"the adapter's vEthernet (<name>) counts as the adapter being present",
			"an LBFO team is a warning",
			guardLinux,
		},
	},

	// MTU.
	"MTU-01": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (encapOverhead 50)",
			"Windows HNS (overlay pod vNICs get MTU 1450)",
			"Linux VXLAN device (the kernel adds the same 50 bytes on the underlying device)",
		},
		Guards: []string{
			"only the adapter that holds an Overlay network's ManagementIP",
			"adapters with an unknown MTU, or the loopback's 4294967295, are not judged",
			"Linux: only VXLAN devices whose underlying device is found (by local address or dev)",
			"skipped without host adapters and Linux links",
		},
	},

	// Outbound NAT.
	"NAT-01": {
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go ApplyOutboundNatPolicy (OutBoundNAT ExceptionList)",
			"microsoft/windows-container-networking cni/cni.go GetNetworkInfo (endpoint policies from AdditionalArgs)",
			"Calico cni-plugin/internal/pkg/utils/winpol/windows_policy.go CalculateEndpointPolicies (IP pool CIDRs appended to the exceptions)",
			"sig-windows-tools hostprocess/flannel/flanneld/start.ps1 (exceptions: service and pod CIDR)",
		},
		Guards: []string{
			"skipped when neither the cluster nor the service CIDR is known",
			guardPodLocal,
			"endpoints without OutBoundNAT (NAT-03's) or whose policies the input hid are not judged",
			"a wider exception covers a narrower CIDR; a bare address counts as a /32",
			"exceptions as broad as a /8 are a warning only",
			guardLinux,
		},
	},
	"NAT-02": {
		Upstream: []string{
			"Windows HNS on Windows Server 2022 and later (rejects an OutBoundNAT exception with host bits set; microsoft/hcsshim#1951)",
			"microsoft/hcsshim hcn/hcnpolicy.go OutboundNatPolicySetting (Exceptions; V1 ExceptionList)",
		},
		Guards: []string{
			"only CIDR entries are judged: bare addresses and names are not",
			"remote endpoints are not judged",
			"skipped without CNI configuration and HNS endpoints",
			guardLinux,
		},
	},
	"NAT-03": {
		Upstream: []string{
			"containernetworking/plugins pkg/hns/netconf_windows.go (ApplyOutboundNatPolicy; ApplyLoopbackDSR adds an OutBoundNAT with Destinations, not SNAT)",
			"Calico cni-plugin/internal/pkg/utils/winpol/windows_policy.go CalculateEndpointPolicies (drops OutBoundNAT when the pool has natOutgoing false)",
		},
		Guards: []string{
			"compared per network: a network where no pod has OutBoundNAT (Calico natOutgoing false) is not flagged",
			"an OutBoundNAT with Destinations (loopback DSR) is not counted as the SNAT policy",
			guardPodLocal,
			"endpoints whose policies the input hid are not judged",
			guardLinux,
		},
	},
	"NAT-04": {
		Upstream: []string{
			"Windows VFP OutBoundNAT (translates TCP and UDP, not ICMP; kubernetes.io Networking on Windows)",
		},
		Guards: []string{
			"information only: by design, nothing to fix",
			"pod-to-pod ICMP is CAP-01's; ICMP to or from a node's own address is not judged",
			"skipped when no pod subnet is known",
		},
	},
	"NAT-05": {
		Upstream: []string{
			"microsoft/windows-container-networking plugins/nat/nat_windows.go (containerd's nat plugin: the Windows NAT network)",
			"containerd CRI (uses the first configuration file of its CNI directory, by name)",
		},
		Guards: []string{
			"a NAT configuration read first is reported only when something shows the host is a Kubernetes node: 0-containerd-nat.json alone is a plain containerd host's",
			"networks whose type the input does not show are not taken for NAT",
			"NAT-network endpoints are judged only when a pod network exists and the cluster CIDR is known; addresses inside the cluster CIDR and remote endpoints are not reported",
			"such endpoints are a warning: they may be Docker containers",
			"skipped without CNI configuration and HNS endpoints",
			guardLinux,
		},
	},

	// Overlay.
	"OVL-01": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go RegisterNetwork (the lease's PublicIP is the --iface address; checkHostNetworkReady)",
			"Calico node/windows-packaging/CalicoWindows/config.ps1 (VXLAN_ADAPTER) and node/node-service.ps1 (External network on that adapter)",
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 IncorrectManagementIpTest (APIPA)",
		},
		Guards: []string{
			guardPodNet,
			"a network without a ManagementIP is OVL-10's case, not judged here",
			"10.0.2.15 is accepted on a real 10.0.2.0/24 network where kubelet uses it and every peer VTEP is another address of that subnet",
			"the node's InternalIP and flannel's public-ip annotation both count as the right address",
			"peers in routed subnets (no on-link prefix holds them all) give no adapter hint",
			"APIPA and single-host (/32) adapter addresses are never taken for the peers' adapter",
			guardLinux,
		},
	},
	"OVL-02": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go handleSubnetEvents (one RemoteSubnetRoute per peer lease: its pod subnet, PublicIP, VtepMAC)",
			"Calico felix/dataplane/windows/vxlan_mgr.go (one RemoteSubnetRoute per remote block)",
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (findRemoteSubnetProviderAddress; no route: \"Could not find provider address, assuming it is a public IP\")",
		},
		Guards: []string{
			guardOverlay + "; L2Bridge peers are reached by host routes (FLN-02)",
			"skipped when the network's policies are not all visible (a cut paste)",
			guardSelf,
			"Calico: peers without a VXLAN tunnel address are not in the overlay; flannel: peers whose backend type is not vxlan are skipped",
			"a route for a wider prefix covers a peer's pod subnet; IPv6 pod subnets are not judged",
			"without Nodes only remote pod endpoints are judged: the own subnet, the service CIDR and node addresses are not pods",
			"without the cluster CIDR a pod endpoint is recognised by kube-proxy's conjured 02-11 MAC",
			guardLinux,
		},
	},
	"OVL-03": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (VNI must be 4096 or more on Windows)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute IsolationId = the lease's VNI; leases below 4096 are skipped)",
			"Calico node/windows-packaging/CalicoWindows/config.ps1 (VXLAN_VNI 4096)",
		},
		Guards: []string{
			guardOverlay,
			"a VSID the input hid, and routes whose IsolationId is not shown (0), are not judged",
			"nodes that publish no flannel VNI are not compared",
			guardLinux,
		},
	},
	"OVL-04": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (Port must be 4789 on Windows)",
			"flannel Documentation/backends.md (vxlan Port: Linux default is the kernel's 8472)",
			"microsoft/hcsshim hcn/hcnglobals.go (VxlanPortVersion: a custom VXLAN port since HNS 10.3)",
		},
		Guards: []string{
			"an unset Backend.Port is fine (4789 on Windows)",
			"a Linux-only cluster may use any port: flannel's port and Linux VXLAN devices are judged only when Windows nodes may be in the cluster",
			"an HNS VxlanPort other than 4789 is a warning: it works when every peer uses it",
			"skipped without net-conf.json, HNS networks and Linux VXLAN devices",
		},
	},
	"OVL-05": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go RegisterNetwork (publishes the network's DrMacAddress as VtepMAC)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute DistributedRouterMacAddress = the peer's VtepMAC; none without one)",
			"Calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go (DR MAC published as VXLANTunnelMACAddr)",
		},
		Guards: []string{
			guardOverlay,
			"a missing DrMacAddress is reported only when the input shows it and the policies in full",
			"this node's published MAC is compared only when the node is identified; a peer's only when a route matches it (pod CIDR or Calico tunnel address)",
			"routes matched to no node are not compared (stale routes are OVL-07's)",
			"MACs are compared in one normalised form (case, separators)",
			guardLinux,
		},
	},
	"OVL-06": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (ProviderAddress = the peer lease's PublicIP)",
			"Calico felix/dataplane/windows/vxlan_mgr.go (ProviderAddress = the peer VTEP's parent device IP)",
		},
		Guards: []string{
			guardOverlay,
			"routes without a ProviderAddress are not judged",
			"'no node has it' only with Kubernetes Nodes in the bundle; InternalIP, ExternalIP, flannel public-ip and Calico IPv4Address all count",
			guardLinux,
		},
	},
	"OVL-07": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (on a lease event: removes the route of the same prefix, adds the new; removes on expiry)",
			"Calico felix/dataplane/windows/vxlan_mgr.go (diffs routes against its blocks)",
		},
		Guards: []string{
			guardOverlay,
			"stale routes are judged only with Kubernetes Nodes in the bundle, and are a warning",
			"Calico: a route to a current node's address is not stale (a node may own several blocks)",
			"routes without a valid destination prefix are skipped",
			guardSelf,
			guardLinux,
		},
	},
	"OVL-08": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (remote endpoint ProviderAddress from findRemoteSubnetProviderAddress, else the node IP)",
			"kubernetes pkg/proxy/winkernel/hns.go createEndpoint",
		},
		Guards: []string{
			"skipped when the cluster CIDR is unknown",
			"Service VIP endpoints (service CIDR) legitimately carry the node's own address and are excluded",
			"node addresses, addresses outside the cluster CIDR and this node's own pod subnet are excluded",
			"endpoints of another network are excluded; only Overlay networks with a ManagementIP",
			guardLinux,
		},
	},
	"OVL-09": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go (getNetworkName: --network-name, else KUBE_NETWORK; getNetworkInfo retries; cleanupAllPolicies when the network is gone)",
			"kubernetes pkg/proxy/winkernel/hns.go getNetworkByName; microsoft/hcsshim hcn/hcnnetwork.go GetNetworkByName (exact Name filter, no regular expression)",
			"flannel pkg/backend/vxlan/device_windows.go (Flags EnableNonPersistent)",
			"sig-windows-tools hostprocess/calico/kube-proxy/start.ps1 (KUBE_NETWORK overridden to the exact name Calico)",
		},
		Guards: []string{
			"a host with only NAT networks and no Kubernetes evidence (kube-proxy flags, a pod-network CNI configuration, net-conf.json, a Node with its address, collectlogs.ps1 output) is a plain container host: info",
			"containerd's 0-containerd-nat.json alone is not Kubernetes evidence",
			"networks whose type the input does not show are never taken for NAT; with none shown as Overlay/L2Bridge while some types are hidden, the rule is skipped",
			"names are compared ignoring case: whether HNS does is not visible",
			"without --network-name (KUBE_NETWORK is in kube-proxy's environment, not the bundle) the name is not judged",
			"a non-persistent network is only noted (info), and only when its Flags are shown",
			guardLinux,
		},
	},
	"OVL-10": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/device_windows.go (waits for the network's ManagementIP / ProviderAddress)",
			"flannel pkg/backend/vxlan/vxlan_windows.go checkHostNetworkReady (waits for the host interface holding it)",
			"Calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go (waits for ManagementIP)",
		},
		Guards: []string{
			guardPodNet,
			"a ManagementIP the input hid is not judged",
			"L2Bridge networks seen only through HNS V2 are not judged: V2 shows no ProviderAddress for them",
			"'no host adapter holds it' is judged only with host adapters in the bundle",
			guardLinux,
		},
	},

	// Services (kube-proxy winkernel).
	"SVC-01": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go NewProxier (overlay: \"source-vip flag not set\") and syncProxyRules (newSourceVIP when no endpoint holds the VIP; \"Source Vip endpoint creation failed\")",
			"sig-windows-tools hostprocess/flannel/kube-proxy/start.ps1 (reserves the VIP with host-local IPAM, c:/sourcevip/sourceVip.json)",
			"Calico node/windows-packaging/CalicoWindows/kubernetes/kube-proxy-service.ps1 (--source-vip = Calico_ep's address)",
		},
		Guards: []string{
			"only overlay needs a source VIP: L2Bridge and other types are skipped, as is a missing kube-proxy network (OVL-09's)",
			"an endpoint at the VIP is a pod only when local with OutBoundNAT or DNS settings: kube-proxy's own endpoint and Calico_ep are fine",
			guardLinux,
		},
	},
	"SVC-02": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (one SourceVIP per Service port: --source-vip, or the node IP for a remote node-IP or public backend)",
			"kubernetes pkg/proxy/winkernel/hns.go getLoadBalancer (SourceVIP, FrontendVIPs, DSR flag)",
			"kubernetes pkg/proxy/winkernel/proxier.go NewProxier (the source VIP exists only on overlay)",
		},
		Guards: []string{
			"only overlay: kube-proxy sets no SourceVIP on L2Bridge or other networks",
			"a SourceVIP is fine when it is --source-vip or any address of this node (adapters, Node InternalIP, --bind-address, ManagementIP); without kube-proxy's flags any pod-subnet address counts as the source VIP",
			"a ManagementIP alone does not prove a SourceVIP stale: when it is the only node address known, a SourceVIP outside the cluster CIDR that is neither --source-vip nor the ManagementIP may be kube-proxy's node IP and is only a warning",
			"when the node's address is known only from a ManagementIP that OVL-01 flags, what depends on it is skipped, naming OVL-01",
			"load balancers whose backends are not all in the bundle are not judged for their backends",
			"DSR non-ClusterIP load balancers (externalTrafficPolicy Local) and ClusterIP ones of internalTrafficPolicy Local Services are not judged: their backends are a local subset",
			"a node-address SourceVIP with pod backends is fine when a sibling load balancer of the Service port has the node backend",
			"empty and IPv6 SourceVIPs are not judged",
			guardLinux,
		},
	},
	"SVC-03": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (a load balancer per Service port; every policy removed when the network is lost)",
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 ValidDNSLoadbalancerPolicy, LoadBalancerPolicyState",
		},
		Guards: []string{
			"IsApplied: False alone is normal; only a V1 policy list State other than 2 is reported",
			"no load balancer at all is reported only when the bundle has Services",
			"the DNS load balancers are checked only when the cluster DNS address is known",
			"dangling backends are judged only with HNS endpoints in the bundle",
			"missing Service load balancers only with Services and EndpointSlices; Services without ready endpoints, headless, ExternalName and traffic-policy Local ones, non-TCP/UDP ports and IPv6 ClusterIPs are not judged",
			guardLinux,
		},
	},
	"SVC-04": {
		Upstream: []string{
			"Windows VFP load balancer (destination limits: 64 without DSR on older builds, 1024 per Service; kubernetes.io Networking on Windows)",
			"kubernetes pkg/proxy/winkernel/hns.go getLoadBalancer (one HNS load balancer holds every backend)",
		},
		Guards: []string{
			"the 64-backend limit applies only to load balancers without DSR, and only when their Flags are shown",
			guardLinux,
		},
	},
	"SVC-05": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (isDSR from --enable-dsr on ClusterIP load balancers; others DSR only for externalTrafficPolicy Local)",
			"microsoft/hcsshim hcn/hcnglobals.go DSRVersion (HNS 9.3 to 9.x, or 10.2 and later), hcn/hcnsupport.go GetSupportedFeatures: what the node's hcsshim says (hns/v2/features.json) is read first, the version through this table only for bundles without it",
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 ClusterIPServiceDSR",
		},
		Guards: []string{
			"only when kube-proxy runs with --enable-dsr=true",
			"only ClusterIP load balancers (VIP in the service CIDR); nothing is judged without the service CIDR",
			"load balancers whose Flags the input hid are not judged",
			guardLinux,
		},
	},
	"LOG-02": {
		Upstream: []string{
			"kubernetes core/v1 ContainerStatus: restartCount, state.waiting.reason (CrashLoopBackOff), lastState.terminated (reason, exitCode)",
			"the pod names of the kube-proxy, flannel, Calico and Antrea Windows daemon sets (sig-windows-tools hostprocess manifests, calico-windows, antrea-windows)",
		},
		Guards: []string{
			"only this node's pods whose names start like the networking daemon sets' (kube-proxy, kube-flannel, calico-node, antrea-agent...)",
			"restarts warn from 5 and only when the last termination was within the hour before collection (restartCount also counts reboots); CrashLoopBackOff of any container fails",
			"only with this node's Pods in the bundle (k8s/pods.json)",
		},
	},
	"EP-02": {
		Upstream: []string{
			"microsoft/windows-container-networking cni (sdnoverlay, sdnbridge) and containernetworking plugins win-overlay/win-bridge: the HNS endpoint is created in CNI ADD and deleted in DEL, nowhere else",
			"kubernetes.io Networking on Windows: HNS restart or a recreated network loses container endpoints",
			"kubernetes pkg/kubelet: status.podIPs of a Running pod are what the CNI returned at sandbox creation",
		},
		Guards: []string{
			"only Running pods that are not hostNetwork, not being deleted, started more than 5 minutes before the collection, and whose pod IP is not the node's own",
			"an empty pod list on a node with local endpoints is skipped: the collector asked the API server for another node name",
			"an endpoint with either of the pod's addresses (IPv4 or IPv6) counts",
			"only with this node's Pods in the bundle (k8s/pods.json)",
		},
	},
	"EP-03": {
		Upstream: []string{
			"microsoft/windows-container-networking cni: runtimeConfig portMappings (capability portMappings) become PortMapping endpoint policies (InternalPort, ExternalPort, Protocol)",
			"HNS V1 endpoint policy NAT = V2 PortMapping (policy aliases)",
		},
		Guards: []string{
			"only Running pods with an HNS endpoint (pods without one are EP-02's)",
			"an endpoint whose policies the input hid is not judged",
			"a PortMapping without InternalPort or Protocol matches any",
		},
	},
	"DS-01": {
		Upstream: []string{
			"microsoft/hcsshim hcn/hcnglobals.go IPv6DualStackVersion (11.10 and later), read from hns/v2/features.json first",
			"kubernetes pkg/proxy/winkernel/proxier.go NewDualStackProxier: an IPv6 proxier only with dual-stack on, whose load balancers carry the IPv6 flag",
			"kubernetes pkg/controller/nodeipam: a dual-stack cluster gives each Node one pod CIDR per family (spec.podCIDRs)",
		},
		Guards: []string{
			"only when this node's own Node has pod CIDRs of both families: single-stack nodes are never judged",
			"never on Overlay networks (winkernel's dualStackCompatible is false for them; flannel on Windows is IPv4-only), nor when kube-proxy's --cluster-cidr has no IPv6 range",
			"pod endpoints are the local ones inside the Node's IPv4 pod CIDR, not the source VIP, the gateway or the host's own addresses",
			"IPv6 load balancers only with Services and EndpointSlices in the bundle, and only for Services with ready IPv6 endpoints",
			"the HNS feature only when features.json or the HNS version is in the bundle",
		},
	},
	"LOG-01": {
		Upstream: []string{
			"kubernetes cmd/kube-proxy/app/server.go ProxyServer.Run: klog \"Version info\" first at every start",
			"kubernetes client-go tools/cache/reflector.go: list and watch errors carry the API server's status text (Unauthorized for 401)",
			"microsoft/hcsshim hcn/hcnerrors.go NetworkNotFoundError: Network name \"...\" not found / Network ID \"...\" not found, returned by GetNetworkByName/ByID to the CNI",
		},
		Guards: []string{
			"only the component logs of the bundle (logs/), never pasted text",
			"each kind once per log, with its count and last line: old occurrences warn, only those in the last 50 lines fail",
			"kube-proxy restarts only from three starts within the log, and never fail on their own",
			"a line over 64 KiB is judged by its start; a log over the part limit is scanned up to it, with a note",
		},
	},
	"HOST-10": {
		Upstream: []string{
			"kubernetes.io Ports and Protocols: kubelet API TCP 10250, reached by the control plane (logs, exec, port-forward, metrics)",
			"kubernetes pkg/proxy/healthcheck and cmd/kube-proxy options (--healthz-bind-address, port 10256 by default)",
			"kubernetes pkg/proxy/winkernel/proxier.go forwardHealthCheckVip (health check through the Service VIP on Windows Server 2019)",
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules: serviceHealthServer.SyncServices(HealthCheckNodePorts) serves each externalTrafficPolicy Local Service's healthCheckNodePort from the host",
		},
		Guards: []string{
			"only bundles whose firewall.json says it gathered the TCP rules (Collected): older collectors gathered the VXLAN ports' UDP rules only",
			"an allow rule for kubelet.exe or kube-proxy.exe counts as well as one for the port",
			"profiles that are off, or whose default inbound action is Allow, are not judged",
			"only the profile of the adapter holding the node IP, when its category is known",
			"10256 only when the bundle has a LoadBalancer Service, and only a warn: installers open 10250 alone",
			"a healthCheckNodePort only for LoadBalancer Services with externalTrafficPolicy Local that have an ingress address and no loadBalancerClass (the cloud provider's load balancer, which probes it), only when firewall.json says it gathered the NodePort range's TCP rules, and only a warn",
		},
	},
	"SVC-12": {
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkhealth.ps1 DSRLoadBalancerPolicyVfpRules: every DSR load balancer's rule LB_DSR_*_<ManagementIP>_<VIP>_<external port>_<internal port>_<protocol> in LB_DSR / LB_DSR_IPv4_OUT of every local endpoint's port",
			"microsoft/SDN networkmonitor CheckDuplicate_LB_DSR_VfpRules: rules of LB_DSR_IPv4_OUT / LB_DSR_IPv6_OUT keyed by destination IPs, ports and protocols; more than one per key is the defect",
			"kubernetes pkg/proxy/winkernel/hns.go getLoadBalancer (Flags 1 = DSR with --enable-dsr; the port mappings' external and internal ports)",
		},
		Guards: []string{
			"only ports dumped with an LB_DSR group that holds rules: where kube-proxy's load balancers do not reach the port's VFP, nothing is expected",
			"only DSR load balancers of ClusterIPs (a Service's ClusterIP when the bundle has Services, else a VIP whose port mapping is not marked VipExternalIP) that HNS shows as applied (V1 State 2, or no state); NodePort, external IP and ingress load balancers are not judged",
			"a warning: HNS and VFP are read moments apart and kube-proxy recreates load balancers as endpoints change (networkhealth.ps1 looks again after 10 s before it reports)",
			"the cluster DNS Service's port 53 is SVC-11's",
			"a rule matches by its name's suffix (anything after a further underscore allowed) or by equal destination address, port and protocol conditions",
			"duplicates only among rules whose conditions show a destination address and port, and that have every condition alike",
			guardHidden,
			guardLinux,
		},
	},
	"SVC-11": {
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 CheckVfpDnsRuleMissing: vfpctrl /port <port> /layer LB_DSR /group LB_DSR_IPv4_OUT /list-rule must hold RULE ...53_53_6 and ...53_53_17 on every local endpoint's port",
			"kubernetes pkg/proxy/winkernel: the kube-dns ClusterIP load balancers (TCP and UDP 53) are programmed by HNS into each local port's LB_DSR layer",
		},
		Guards: []string{
			"only ports dumped with an LB_DSR layer whose LB_DSR_IPv4_OUT group has rules: where kube-proxy's load balancers do not reach the port's VFP, nothing is expected",
			"only with the cluster DNS Service in the bundle, and only the protocols its port 53 offers",
			"only ports a local endpoint owns",
		},
	},
	"SVC-10": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (every ready endpoint, of the Service's family, is a backend of each ClusterIP load balancer; terminating ones only when none is ready)",
			"kubernetes pkg/proxy/winkernel/hns.go updateLoadBalancer (hcn UpdateLoadBalancer in place of delete and create, when hcsshim says ModifyLoadbalancer is supported)",
			"microsoft/hcsshim hcn/hcnglobals.go ModifyLoadbalancerVersion (HNS 15.4 and later), read from hns/v2/features.json first",
		},
		Guards: []string{
			"only with the Services and their EndpointSlices in the bundle",
			"Services with internalTrafficPolicy Local, topology hints or no ready endpoint are not judged",
			"a load balancer whose backend list the input hid, or that names an endpoint the bundle does not have, is not judged",
			"only addresses of the VIP's family are expected (an IPv4 VIP never lists IPv6 pods)",
			"this node's own addresses are not expected: kube-proxy leaves out a local endpoint without an HNS endpoint (hostNetwork pods here)",
			"warn, not fail: a pod that became ready seconds before collection can be missing for one sync period",
		},
	},
	"SVC-06": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (remote endpoint per Service ClusterIP on overlay: ClusterIP, host MAC, node IP as ProviderAddress; the source VIP endpoint; endpointInfo.Cleanup by reference count)",
			"kubernetes pkg/proxy/winkernel/hns.go createEndpoint (RemoteEndpoint flag, ProviderAddress policy)",
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 StaleRemoteEndpoints",
		},
		Guards: []string{
			"load balancers are duplicates only when VIP, protocol and external port all match: one per Service port on a VIP is normal, and VIP-less (NodePort) ones are not compared",
			"no port mappings is judged only when the input shows PortMappings",
			"the ClusterIP remote endpoints kube-proxy creates on overlay are not stale: address a load balancer VIP, a Service ClusterIP or in the service CIDR",
			"without the service CIDR such an endpoint is one outside the pod networks with the host's MAC (any MAC but kube-proxy's conjured 02-11 when adapters are missing) and this node's address as ProviderAddress (any, when that is unsure)",
			"with Services, such an endpoint whose address no Service has is a left-over of a deleted Service (warn); without them, one in the service CIDR is not judged",
			"the source VIP, <network>_ep endpoints, endpoints whose address is their own ProviderAddress and node or Calico tunnel addresses are not stale",
			"stale remote endpoints are a warning; no load balancer at all is SVC-03's",
			"stale backends only with Services and EndpointSlices; internalTrafficPolicy Local, topology-hinted and endpoint-less Services are not judged",
			guardLinux,
		},
	},
	"SVC-07": {
		Upstream: []string{
			"Windows Server 2022 HNS (overlay NodePort to a local Windows pod times out; microsoft/Windows-Containers#204)",
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (NodePort load balancer without a VIP, LocalRoutedVIP)",
		},
		Guards: []string{
			"only Windows Server 2022 (build 20348) with an overlay CNI network",
			"Services with externalTrafficPolicy Local, without node ports, or without a backend on this node are not reported",
			"a warning: whether it bites depends on where clients come from",
			guardLinux,
		},
	},
	"SVC-08": {
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (the ClusterIP load balancer takes every endpoint; NodePort and ingress only local ones with externalTrafficPolicy Local)",
		},
		Guards: []string{
			"Services without a ready endpoint anywhere are not judged",
			"headless (None) ClusterIPs are not judged",
			"no NodePort or ingress load balancer when no backend is local is expected and not reported",
			guardLinux,
		},
	},
	"SVC-09": {
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 PortExhaustionTest, CountAvailableEphemeralPorts (64-port blocks, 10 or fewer fails)",
			"Windows HNS (reserves load balancer and SNAT ports from the dynamic range in blocks of 64)",
		},
		Guards: []string{
			"a protocol whose dynamic range is not shown is not judged; skipped when neither is",
			guardLinux,
		},
	},

	// OS version.
	"VER-01": {
		Upstream: []string{
			"microsoft/hcsshim hcn/hcnglobals.go RemoteSubnetVersion (HNS 9.2 and later)",
			"flannel pkg/backend/vxlan/vxlan_windows.go (hcn.RemoteSubnetSupported before creating the network)",
			"kubernetes pkg/proxy/winkernel/proxier.go NewProxier (overlay requires RemoteSubnetSupported)",
		},
		Guards: []string{
			"skipped without an Overlay network, or when the build is unknown",
			"build 17763 with an unknown update revision is not judged",
			"a hotfix list naming KB4482887 or KB4489899 passes",
			guardLinux,
		},
	},
	"VER-02": {
		Upstream: []string{
			"Windows Server 2022 cumulative updates 20348.2322 to 20348.2761 (HNS regression; microsoft/Windows-Containers#516, fixed by KB5044281)",
		},
		Guards: []string{
			"skipped when the build or update revision is unknown",
			"a hotfix list naming KB5044281 passes",
			guardLinux,
		},
	},

	// Cross-node.
	"XN-01": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (the node's PublicIP is its VTEP); Calico IP autodetection (IPv4Address)",
			"Linux VXLAN device local address (flannel pkg/backend/vxlan/vxlan_network.go FDB entries point at it)",
		},
		Guards: []string{
			guardLatest,
			"each pair of nodes is reported once",
			"nodes without an overlay network or VXLAN device are not compared",
		},
	},
	"XN-02": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute ProviderAddress and DR MAC from the peer's lease)",
			"Calico felix/dataplane/windows/vxlan_mgr.go",
		},
		Guards: []string{
			guardLatest,
			"only routes to another analysed node whose VTEP its own bundle shows (annotations are not trusted)",
			"the DR MAC is compared only when both sides show one",
		},
	},
	"XN-03": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_network.go handleSubnetEvents (Linux: ARP entry to the VtepMAC, FDB entry to the PublicIP, onlink route per peer subnet)",
		},
		Guards: []string{
			guardLatest,
			"only routes toward a Windows node of the analysis",
			"the VTEP and DR MAC are compared only when the Windows bundle shows them",
		},
	},
	"XN-04": {
		Upstream: []string{
			"flannel pkg/backend/vxlan/vxlan_windows.go (VNI 4096+, port 4789 on Windows)",
			"flannel Documentation/backends.md (Linux defaults: VNI 1, port 8472)",
		},
		Guards: []string{
			guardLatest,
			"nodes whose VNI is unknown are not compared",
			"the port is judged only for Linux nodes, and only when Windows nodes are in the analysis",
		},
	},
}
