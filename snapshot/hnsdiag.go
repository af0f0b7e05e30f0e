package snapshot

// HNSDiagObject is one object `hnsdiag list all` printed: only names and
// IDs, but it is what a node without hns.psm1 can show.
type HNSDiagObject struct {
	Kind    string `json:"kind"` // network, endpoint, namespace, loadbalancer
	ID      string `json:"id"`
	Name    string `json:"name,omitempty"`
	IP      string `json:"ip,omitempty"`
	Network string `json:"network,omitempty"`
}
