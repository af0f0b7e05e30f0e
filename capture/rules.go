package capture

import (
	"github.com/wincni/diag/catalog"
	"github.com/wincni/diag/finding"
)

// The capture rules are declared in the catalog beside the bundle rules:
// one list for diag rules, --rules and the reports.
func init() {
	for _, r := range rules {
		catalog.Declare(r, ruleByID)
	}
}

// ruleByID is a capture rule's declaration.
func ruleByID(id string) catalog.Entry {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	return catalog.Entry{ID: id}
}

// rules are the capture rules: the checks in findings.go raise them by ID.
var rules = []catalog.Entry{
	{ID: "CAP-01", Title: "Pod traffic leaves unencapsulated on the underlay", Severity: finding.Fail,
		Needs:   "a capture with VXLAN traffic, or --bundle for the pod subnets",
		Checks:  "Packets between pods of different nodes that cross the capture point without VXLAN, and never appear encapsulated.",
		Why:     "Return traffic that is not encapsulated is dropped by the underlay or by the peer's anti-spoofing; connections hang in one direction.",
		Fix:     "Check the CNI's OutBoundNAT exceptions and routes on the sending node (NAT-01), and that its network is the overlay (OVL-09).",
		Sources: []string{"reference/failure-modes.md CAP-01"},
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
	{ID: "CAP-02", Title: "TCP handshake never completes inside the tunnel", Severity: finding.Fail,
		Needs:   "a capture with VXLAN traffic",
		Checks:  "Inner TCP SYNs that were retransmitted and never answered by a SYN/ACK. Copies of one packet (pktmon logs each packet at every component) are counted once.",
		Why:     "The seed's symptom: the peer encapsulates SYNs to an address that is not the receiving node's VTEP, or the receiver drops them.",
		Fix:     "Check that the tunnel's destination is the receiving node's VTEP (OVL-01), that UDP 4789 is open (HOST-08), and that VNI and port match (OVL-03, OVL-04); analyze both nodes' bundles together.",
		Sources: []string{"seeds/002 (the Vagrant case)", "reference/failure-modes.md §5"},
		Upstream: []string{
			"RFC 793 (TCP three-way handshake), RFC 7348 (inner frames)",
		},
		Guards: []string{
			"copies of one packet (pktmon logs it at every component it crosses) are counted once",
			"a SYN is retransmitted only when sent again with another IP ID or 200 ms later; one SYN is not a failure",
			"a flow that saw any SYN-ACK is not reported",
		},
	},
	{ID: "CAP-03", Title: "Unexpected VNI", Severity: finding.Fail,
		Needs:   "--vni, or --bundle with the network's VSID",
		Checks:  "VXLAN packets whose VNI is not the one the overlay network uses.",
		Why:     "A node decapsulates only its own VNI; Windows needs 4096 or more while Linux flannel defaults to 1.",
		Fix:     `Set the same VNI (4096 or more) everywhere: flannel net-conf.json "VNI": 4096; Calico VXLAN_VNI.`,
		Sources: []string{"https://github.com/k3s-io/k3s/issues/9295", "reference/failure-modes.md OVL-03"},
		Upstream: []string{
			"RFC 7348 §5 (24-bit VNI)",
			"flannel pkg/backend/vxlan/vxlan_windows.go RegisterNetwork (VNI must be 4096 or more on Windows)",
		},
		Guards: []string{
			"skipped without an expected VNI (--vni, or a bundle with the network's VSID)",
		},
	},
	{ID: "CAP-04", Title: "Tunnel endpoint that is no node's address", Severity: finding.Fail,
		Needs:   "--bundle",
		Checks:  "Outer source and destination addresses compared with every ManagementIP, RemoteSubnetRoute ProviderAddress and node InternalIP the bundles know.",
		Why:     "VXLAN sent to an address that is no node's VTEP (a NAT address, a stale peer) is lost.",
		Fix:     "Find which node published that address (flannel public-ip, Calico IPv4Address) and fix its interface selection; refresh stale routes (OVL-06, OVL-07).",
		Sources: []string{"reference/failure-modes.md OVL-06"},
		Upstream: []string{
			"RFC 7348 (outer addresses are the VTEPs)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (RemoteSubnetRoute ProviderAddress = the peer lease's PublicIP)",
		},
		Guards: []string{
			"skipped without a bundle, or when the bundle knows no node address",
			"every ManagementIP, RemoteSubnetRoute ProviderAddress and Node InternalIP of the bundles counts as a node's address",
		},
	},
	{ID: "CAP-05", Title: "Outer fragments or packets too large for the path MTU", Severity: finding.Warn,
		Needs:   "a capture with VXLAN traffic (--mtu or --bundle for the size check)",
		Checks:  "Outer IPv4 fragments of VXLAN, and VXLAN packets larger than the underlay MTU. GSO and BIG TCP super-packets captured before segmentation are offload artefacts and do not count.",
		Why:     "VXLAN adds 50 bytes; when pods' MTU is not reduced, large packets fragment or are dropped and TLS or large responses hang.",
		Fix:     "Lower the pod MTU by 50 bytes (flannel does it from the interface MTU; check the CNI config) or raise the underlay MTU (MTU-01).",
		Sources: []string{"reference/failure-modes.md MTU-01"},
		Upstream: []string{
			"RFC 7348 (VTEPs must not fragment VXLAN packets)",
			"flannel pkg/backend/vxlan/vxlan_network_windows.go (encapOverhead 50: pod MTU = interface MTU - 50)",
		},
		Guards: []string{
			"GSO and BIG TCP super-packets captured before segmentation are offload artefacts, not oversize",
			"the size check runs only with an MTU (--mtu or the bundle's); fragments are counted without one",
		},
	},
	{ID: "CAP-06", Title: "Inner checksum errors", Severity: finding.Warn,
		Needs:   "a capture with whole packets",
		Checks:  "Inner IPv4 header and TCP/UDP/ICMP checksums of fully captured packets; partial checksums left for the NIC (transmit offload) and super-packets are artefacts, not errors.",
		Why:     "Corruption on the underlay (VMXNET3 VXLAN offload, NSX port conflicts) silently drops traffic.",
		Fix:     "Capture on the receiving side to confirm; disable the NIC's VXLAN/UDP checksum offload on the node or hypervisor (HOST-07).",
		Sources: []string{"reference/failure-modes.md HOST-07"},
		Upstream: []string{
			"RFC 791, RFC 793, RFC 768, RFC 792 (IPv4, TCP, UDP, ICMP checksums)",
		},
		Guards: []string{
			"partial checksums left for the NIC (transmit offload) and super-packets are not errors",
			"packets captured shorter than they were on the wire are not checked",
			"of the large inner packets of a tunnel only the first 256 and then one in 8 are checked",
		},
	},
	{ID: "CAP-07", Title: "Inner destination MAC is not the destination's DR MAC", Severity: finding.Fail,
		Needs:   "--bundle",
		Checks:  "The inner destination MAC of frames sent to a VTEP, compared with the DR MAC the bundles give that VTEP (own DrMacAddress, RemoteSubnetRoute DistributedRouterMacAddress, Linux VXLAN device MAC).",
		Why:     "Windows decapsulates at layer 2: a frame to a stale DR MAC is dropped.",
		Fix:     "Restart flanneld (or calico-node) on the node whose MAC changed, then on its peers, so that routes carry the current DR MAC (OVL-05).",
		Sources: []string{"reference/failure-modes.md OVL-05"},
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
	{ID: "CAP-08", Title: "Malformed VXLAN", Severity: finding.Warn,
		Needs:   "a capture with VXLAN traffic",
		Checks:  "Packets to the VXLAN port whose I flag is clear or whose 8-byte header is cut short (not by the capture's snap length).",
		Why:     "Receivers drop them; another protocol on the VXLAN port (or a misconfigured peer) looks like this.",
		Fix:     "Find the sender (outer source) and check what runs on UDP 4789 there.",
		Sources: []string{"RFC 7348 §5"},
		Upstream: []string{
			"RFC 7348 §5 (8-byte header, I flag set)",
			"RFC 8926 (Geneve, UDP 6081); VXLAN-GPE (UDP 4790, P bit)",
		},
		Guards: []string{
			"a header cut by the capture's snap length is not malformed",
			"Geneve and VXLAN-GPE are recognised and noted, not reported as malformed VXLAN",
		},
	},
	{ID: "CAP-09", Title: "Resets or ICMP errors inside the tunnel", Severity: finding.Warn,
		Needs:   "a capture with VXLAN traffic",
		Checks:  "Inner TCP resets, and ICMP destination unreachable or fragmentation needed (ICMPv6 packet too big) carried in the tunnel.",
		Why:     "Resets point at policy (Calico reprogramming, CAL-02) or a closed port; fragmentation-needed points at the MTU.",
		Fix:     "For resets, check network policy and the service's endpoints; for fragmentation needed, see CAP-05 and MTU-01.",
		Sources: []string{"reference/failure-modes.md CAL-02, MTU-01"},
		Upstream: []string{
			"RFC 793 (RST), RFC 792 (destination unreachable, fragmentation needed), RFC 4443 (packet too big)",
			"Calico felix/dataplane/windows/endpoint_mgr.go (ACL reprogramming, see CAL-02)",
		},
		Guards: []string{
			"copies of one packet are counted once",
			"a warning: a reset may be a closed port or policy doing its job",
		},
	},
	{ID: "CAP-10", Title: "Underlay routers drop tunnel packets as too big", Severity: finding.Fail,
		Needs:  "a capture on the node's underlay adapter",
		Checks: "ICMP \"fragmentation needed\" (IPv4, with the next-hop MTU) and ICMPv6 \"packet too big\" on the underlay whose quoted packet is VXLAN or Geneve (UDP to the VXLAN ports or 6081): the VTEP pair, the MTU the router announced, the largest packet it refused.",
		Why:    "A router between two VTEPs could not forward an encapsulated packet without fragmenting it and dropped it: the pods' MTU leaves no room for the tunnel's 50 bytes (70 over IPv6) on this path. Small packets pass, so pings and handshakes work while TLS and large responses hang.",
		Fix: "Set the pod MTU to the path MTU less the encapsulation: flannel writes FLANNEL_MTU = the interface MTU less 50 into subnet.env (give the right interface, or a lower \"MTU\" in net-conf.json); " +
			"Calico: the Installation's spec.calicoNetwork.mtu (or veth_mtu in the calico-config ConfigMap, FelixConfiguration vxlanMTU) at the path MTU less 50 for VXLAN over IPv4, 70 over IPv6. " +
			"Windows overlay endpoints get 1450 from HNS (EncapOverhead 50), which fits a 1500-byte path only: below that, raise the MTU of the routers on the path (jumbo frames) to 50 bytes above the pods'. See MTU-01.",
		Sources: []string{"RFC 1191 §4 (next-hop MTU in fragmentation needed)", "RFC 4443 §3.2 (packet too big)", "https://docs.tigera.io/calico/latest/networking/configuring/mtu",
			"https://github.com/flannel-io/flannel/blob/master/Documentation/troubleshooting.md", "reference/failure-modes.md MTU-01"},
		Upstream: []string{
			"RFC 1191 §4 (fragmentation needed carries the next-hop MTU), RFC 4443 §3.2 (packet too big), RFC 792 and RFC 1812 §4.3.2.3 (the error quotes the start of the dropped packet)",
			"flannel pkg/backend/vxlan/vxlan_network.go (encapOverhead 50: FLANNEL_MTU = interface MTU - 50)",
			"Calico docs networking/configuring/mtu (VXLAN over IPv4 50 bytes, over IPv6 70; veth and tunnel device MTU)",
		},
		Guards: []string{
			"only ICMP errors whose quoted packet is UDP to a VXLAN port or to Geneve's 6081 count; too-big errors about other traffic, and other ICMP errors about tunnel packets, do not",
			"ICMP errors carried inside the tunnel are CAP-09's",
			"a router that gives no MTU (before RFC 1191) is reported without a pod MTU to set",
		},
	},
	{ID: "CAP-11", Title: "Packets dropped on the node (pktmon)", Severity: finding.Fail,
		Needs:   "a pktmon ETL file (PktMon.etl; --bundle for the pod subnets)",
		Checks:  "pktmon's drop events (170) by reason, location and component: drops at VFP, and at the vSwitch on a container's or VM's port, fail; with the bundles' pod subnets, drops of pod traffic elsewhere (other vSwitch ports fail; NDIS, TCP/IP warn). Broadcast and multicast drops do not count. The reason names are the file's own.",
		Why:     "VFP and the vSwitch drop pod traffic silently (an ACL or policy, a missing route or encapsulation rule, a port not yet ready): no counter the pod sees moves, and pcapng conversions (pktmon etl2pcap) lose the reason.",
		Fix:     "Look up the reason: a VFP rule or ACL drop points at network policy (CAL-02) or the port's VFP rules (vfpctrl /port <port> /list-rule); a vSwitch drop at the port's state or VLAN; then capture again with pktmon start -c --comp nics,vmswitch to see where the packet stops.",
		Sources: []string{"https://learn.microsoft.com/windows-server/networking/technologies/pktmon/pktmon", "pktmonnpik.h PKTMON_DROP_REASON, PKTMON_DROP_LOCATION"},
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
	{ID: "NAT-04", Title: "ping to external addresses fails from Windows pods, by design", Severity: finding.Info,
		Needs:  "a capture with VXLAN traffic, or --bundle for the pod subnets",
		Checks: "ICMP between a pod address and an address outside the pod subnets (and no node's) seen on the wire without NAT: the pod's own address reached the underlay.",
		Why:    "VFP does not translate ICMP through OutBoundNAT (win-overlay, win-bridge, Azure CNI): ping 8.8.8.8 fails from a pod while curl works, and people conclude that egress is broken.",
		Fix:    "Nothing to fix: test with TCP instead (curl.exe, or Test-NetConnection <host> -Port 443). Ping between pods works.",
		Sources: []string{"https://kubernetes.io/docs/concepts/services-networking/windows-networking/", "https://github.com/microsoft/SDN/issues/170",
			"https://github.com/kubernetes-sigs/sig-windows-tools/issues/137"},
		Upstream: []string{
			"Windows VFP OutBoundNAT (translates TCP and UDP, not ICMP; kubernetes.io Networking on Windows)",
		},
		Guards: []string{
			"information only: by design, nothing to fix",
			"pod-to-pod ICMP is CAP-01's; ICMP to or from a node's own address is not judged",
			"skipped when no pod subnet is known",
		},
	},
}
