package capture

import "github.com/wincni/diag/finding"

// Rule documents one capture finding, for `diag rules` and docs/rules.md.
type Rule struct {
	ID       string
	Title    string
	Severity finding.Severity
	Needs    string
	Checks   string
	Why      string
	Fix      string
	Sources  []string
}

// Rules are the capture rules, in ID order.
var Rules = []Rule{
	{ID: "CAP-01", Title: "Pod traffic leaves unencapsulated on the underlay", Severity: finding.Fail,
		Needs:   "a capture with VXLAN traffic, or --bundle for the pod subnets",
		Checks:  "Packets between pods of different nodes that cross the capture point without VXLAN, and never appear encapsulated.",
		Why:     "Return traffic that is not encapsulated is dropped by the underlay or by the peer's anti-spoofing; connections hang in one direction.",
		Fix:     "Check the CNI's OutBoundNAT exceptions and routes on the sending node (NAT-01), and that its network is the overlay (OVL-09).",
		Sources: []string{"reference/failure-modes.md CAP-01"}},
	{ID: "CAP-02", Title: "TCP handshake never completes inside the tunnel", Severity: finding.Fail,
		Needs:   "a capture with VXLAN traffic",
		Checks:  "Inner TCP SYNs that were retransmitted and never answered by a SYN/ACK. Copies of one packet (pktmon logs each packet at every component) are counted once.",
		Why:     "The seed's symptom: the peer encapsulates SYNs to an address that is not the receiving node's VTEP, or the receiver drops them.",
		Fix:     "Check that the tunnel's destination is the receiving node's VTEP (OVL-01), that UDP 4789 is open (HOST-08), and that VNI and port match (OVL-03, OVL-04); analyze both nodes' bundles together.",
		Sources: []string{"seeds/002 (the Vagrant case)", "reference/failure-modes.md §5"}},
	{ID: "CAP-03", Title: "Unexpected VNI", Severity: finding.Fail,
		Needs:   "--vni, or --bundle with the network's VSID",
		Checks:  "VXLAN packets whose VNI is not the one the overlay network uses.",
		Why:     "A node decapsulates only its own VNI; Windows needs 4096 or more while Linux flannel defaults to 1.",
		Fix:     `Set the same VNI (4096 or more) everywhere: flannel net-conf.json "VNI": 4096; Calico VXLAN_VNI.`,
		Sources: []string{"https://github.com/k3s-io/k3s/issues/9295", "reference/failure-modes.md OVL-03"}},
	{ID: "CAP-04", Title: "Tunnel endpoint that is no node's address", Severity: finding.Fail,
		Needs:   "--bundle",
		Checks:  "Outer source and destination addresses compared with every ManagementIP, RemoteSubnetRoute ProviderAddress and node InternalIP the bundles know.",
		Why:     "VXLAN sent to an address that is no node's VTEP (a NAT address, a stale peer) is lost.",
		Fix:     "Find which node published that address (flannel public-ip, Calico IPv4Address) and fix its interface selection; refresh stale routes (OVL-06, OVL-07).",
		Sources: []string{"reference/failure-modes.md OVL-06"}},
	{ID: "CAP-05", Title: "Outer fragments or packets too large for the path MTU", Severity: finding.Warn,
		Needs:   "a capture with VXLAN traffic (--mtu or --bundle for the size check)",
		Checks:  "Outer IPv4 fragments of VXLAN, and VXLAN packets larger than the underlay MTU. GSO and BIG TCP super-packets captured before segmentation are offload artefacts and do not count.",
		Why:     "VXLAN adds 50 bytes; when pods' MTU is not reduced, large packets fragment or are dropped and TLS or large responses hang.",
		Fix:     "Lower the pod MTU by 50 bytes (flannel does it from the interface MTU; check the CNI config) or raise the underlay MTU (MTU-01).",
		Sources: []string{"reference/failure-modes.md MTU-01"}},
	{ID: "CAP-06", Title: "Inner checksum errors", Severity: finding.Warn,
		Needs:   "a capture with whole packets",
		Checks:  "Inner IPv4 header and TCP/UDP/ICMP checksums of fully captured packets; partial checksums left for the NIC (transmit offload) and super-packets are artefacts, not errors.",
		Why:     "Corruption on the underlay (VMXNET3 VXLAN offload, NSX port conflicts) silently drops traffic.",
		Fix:     "Capture on the receiving side to confirm; disable the NIC's VXLAN/UDP checksum offload on the node or hypervisor (HOST-07).",
		Sources: []string{"reference/failure-modes.md HOST-07"}},
	{ID: "CAP-07", Title: "Inner destination MAC is not the destination's DR MAC", Severity: finding.Fail,
		Needs:   "--bundle",
		Checks:  "The inner destination MAC of frames sent to a VTEP, compared with the DR MAC the bundles give that VTEP (own DrMacAddress, RemoteSubnetRoute DistributedRouterMacAddress, Linux VXLAN device MAC).",
		Why:     "Windows decapsulates at layer 2: a frame to a stale DR MAC is dropped.",
		Fix:     "Restart flanneld (or calico-node) on the node whose MAC changed, then on its peers, so that routes carry the current DR MAC (OVL-05).",
		Sources: []string{"reference/failure-modes.md OVL-05"}},
	{ID: "CAP-08", Title: "Malformed VXLAN", Severity: finding.Warn,
		Needs:   "a capture with VXLAN traffic",
		Checks:  "Packets to the VXLAN port whose I flag is clear or whose 8-byte header is cut short (not by the capture's snap length).",
		Why:     "Receivers drop them; another protocol on the VXLAN port (or a misconfigured peer) looks like this.",
		Fix:     "Find the sender (outer source) and check what runs on UDP 4789 there.",
		Sources: []string{"RFC 7348 §5"}},
	{ID: "CAP-09", Title: "Resets or ICMP errors inside the tunnel", Severity: finding.Warn,
		Needs:   "a capture with VXLAN traffic",
		Checks:  "Inner TCP resets, and ICMP destination unreachable or fragmentation needed (ICMPv6 packet too big) carried in the tunnel.",
		Why:     "Resets point at policy (Calico reprogramming, CAL-02) or a closed port; fragmentation-needed points at the MTU.",
		Fix:     "For resets, check network policy and the service's endpoints; for fragmentation needed, see CAP-05 and MTU-01.",
		Sources: []string{"reference/failure-modes.md CAL-02, MTU-01"}},
	{ID: "CAP-10", Title: "Packets dropped on the node (pktmon)", Severity: finding.Fail,
		Needs:   "a pktmon ETL file (PktMon.etl; --bundle for the pod subnets)",
		Checks:  "pktmon's drop events (170) by reason, location and component: drops at VFP, and at the vSwitch on a container's or VM's port, fail; with the bundles' pod subnets, drops of pod traffic elsewhere (other vSwitch ports fail; NDIS, TCP/IP warn). Broadcast and multicast drops do not count. The reason names are the file's own.",
		Why:     "VFP and the vSwitch drop pod traffic silently (an ACL or policy, a missing route or encapsulation rule, a port not yet ready): no counter the pod sees moves, and pcapng conversions (pktmon etl2pcap) lose the reason.",
		Fix:     "Look up the reason: a VFP rule or ACL drop points at network policy (CAL-02) or the port's VFP rules (vfpctrl /port <port> /list-rule); a vSwitch drop at the port's state or VLAN; then capture again with pktmon start -c --comp nics,vmswitch to see where the packet stops.",
		Sources: []string{"https://learn.microsoft.com/windows-server/networking/technologies/pktmon/pktmon", "pktmonnpik.h PKTMON_DROP_REASON, PKTMON_DROP_LOCATION"}},
	{ID: "NAT-04", Title: "ping to external addresses fails from Windows pods, by design", Severity: finding.Info,
		Needs:  "a capture with VXLAN traffic, or --bundle for the pod subnets",
		Checks: "ICMP between a pod address and an address outside the pod subnets (and no node's) seen on the wire without NAT: the pod's own address reached the underlay.",
		Why:    "VFP does not translate ICMP through OutBoundNAT (win-overlay, win-bridge, Azure CNI): ping 8.8.8.8 fails from a pod while curl works, and people conclude that egress is broken.",
		Fix:    "Nothing to fix: test with TCP instead (curl.exe, or Test-NetConnection <host> -Port 443). Ping between pods works.",
		Sources: []string{"https://kubernetes.io/docs/concepts/services-networking/windows-networking/", "https://github.com/microsoft/SDN/issues/170",
			"https://github.com/kubernetes-sigs/sig-windows-tools/issues/137"}},
}
