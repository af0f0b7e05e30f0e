package analyzers

import (
	"strings"

	"github.com/wincni/diag/snapshot"
)

// cniFlavor is which network plugin programs the overlay; remediations and
// some checks differ between them.
type cniFlavor int

const (
	cniUnknown cniFlavor = iota
	cniCalico
	cniFlannel
)

// String names the plugin as operators do.
func (f cniFlavor) String() string {
	switch f {
	case cniCalico:
		return "calico"
	case cniFlannel:
		return "flannel"
	}
	return "unknown"
}

// flavorOf guesses the plugin from the network name (Calico hard-codes
// "Calico"; flannel uses flannel.<VNI>, vxlan0 or cbr0) and the node
// annotations each one publishes.
func flavorOf(s *snapshot.Snapshot, n *snapshot.Network) cniFlavor {
	name := strings.ToLower(n.Name)
	switch {
	case strings.HasPrefix(name, "calico"):
		return cniCalico
	case strings.HasPrefix(name, "flannel") || name == "vxlan0" || name == "cbr0":
		return cniFlannel
	}
	for _, k := range s.KubeNodes {
		if _, ok := k.Annotations.Lookup(snapshot.AnnotationCalicoVXLANAddr); ok {
			return cniCalico
		}
		if _, ok := k.Annotations.Lookup(snapshot.AnnotationFlannelBackendData); ok {
			return cniFlannel
		}
	}
	return cniUnknown
}

// cniNetworks are the networks the pod-network rules look at: the CNI
// network when the facts name one, else every Overlay/L2Bridge network
// except the bootstrap ones.
func cniNetworks(s *snapshot.Snapshot) []*snapshot.Network {
	if n := s.CNINetwork(); n != nil {
		return []*snapshot.Network{n}
	}
	var out []*snapshot.Network
	for _, n := range s.Networks {
		if n.IsOverlayOrBridge() && !strings.EqualFold(n.Name, "External") {
			out = append(out, n)
		}
	}
	return out
}

// networkObject names a network for evidence.
func networkObject(n *snapshot.Network) string {
	if n.ID == "" {
		return "network " + n.Name
	}
	return "network " + n.Name + " (" + n.ID + ")"
}

func networkFile(n *snapshot.Network) string {
	if len(n.Refs) == 0 {
		return ""
	}
	return n.Refs[0].File
}

// nodeFlavor is the network plugin of a node as its configuration and CNI
// network show it; cniUnknown when they do not say or disagree.
func nodeFlavor(s *snapshot.Snapshot) cniFlavor {
	if s.Flannel != nil {
		return cniFlannel
	}
	found := cniUnknown
	for _, n := range cniNetworks(s) {
		f := flavorOf(s, n)
		if f == cniUnknown || (found != cniUnknown && f != found) {
			return cniUnknown
		}
		found = f
	}
	return found
}
