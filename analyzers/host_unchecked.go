package analyzers

import (
	"fmt"
	"strings"

	"github.com/wincni/diag/catalog"
	"github.com/wincni/diag/finding"
)

// unchecked are the modes of the failure catalog that no bundle can reveal:
// the data they need is not on the node, or not in any state diag
// collects. diag rules lists them with the data each would need (Needs),
// so that a user knows what diag did not look at; Severity is the
// catalog's, were it checked.
var unchecked = []catalog.Entry{
	{
		ID: "HOST-06", Title: "MAC address spoofing disabled on the VM's NIC (Hyper-V) or forged transmits refused (VMware)", Severity: finding.Fail,
		Needs: "the hypervisor's view of the node's NIC: Get-VMNetworkAdapter -VMName <node> | Select MacAddressSpoofing on the Hyper-V host, or the vSphere port group's " +
			"promiscuous mode and forged transmits. A VM cannot read its hypervisor's settings.",
		Why: "The hypervisor drops frames whose source MAC is not the VM's own: with l2bridge (and transparent) networks every pod frame carries the pod's MAC, so pods have no connectivity while the host works.",
		Fix: "Hyper-V: Set-VMNetworkAdapter -VMName <node> -MacAddressSpoofing On. VMware: allow promiscuous mode and forged transmits on the port group. Azure VMs do not support it: use overlay there.",
		Sources: []string{"https://kubernetes.io/docs/tasks/debug/debug-cluster/windows/", "https://github.com/MicrosoftDocs/Virtualization-Documentation/pull/678",
			"https://github.com/MicrosoftDocs/Virtualization-Documentation/issues/802"},
	},
	{
		ID: "HOST-07", Title: "The underlay drops or corrupts VXLAN (NSX on 4789, VMXNET3 offloads)", Severity: finding.Fail,
		Needs: "captures of the same flows taken at the same time on the sending and the receiving node (a packet that leaves one and never reaches the other), " +
			"and the NICs' offload settings (Get-NetAdapterAdvancedProperty). diag capture decodes each capture on its own; it does not correlate two.",
		Why: "vSphere NSX uses or filters UDP 4789 and VMXNET3's VXLAN and checksum offloads can emit bad checksums: encapsulated packets leave one node and never arrive, while everything works on other hypervisors. " +
			"Calico for Windows cannot move off port 4789.",
		Fix:     "Disable VXLAN/TX checksum offload on the VMXNET3 adapters, keep NSX off the overlay's port, or use a custom VXLAN port where the CNI supports it.",
		Sources: []string{"https://github.com/projectcalico/calico/issues/4727", "https://github.com/flannel-io/flannel/issues/2388", "https://github.com/projectcalico/calico/issues/7040"},
	},
}

func init() {
	for _, e := range unchecked {
		e.Unchecked = true
		e.Checks = "Nothing: no bundle holds the data this mode shows in."
		catalog.Declare(e, uncheckedError)
	}
}

func uncheckedError(sel string) error {
	for _, u := range unchecked {
		if selects(sel, u.ID) {
			return fmt.Errorf("%s is not checked from a bundle: it needs %s (diag rules %s)", u.ID, firstClause(u.Needs), u.ID)
		}
	}
	return nil
}

func firstClause(s string) string {
	if i := strings.IndexAny(s, ":."); i > 0 {
		return s[:i]
	}
	return s
}
