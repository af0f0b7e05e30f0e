package gen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EndpointPaste sizes one node's Get-HnsEndpoint output in an N-node
// overlay cluster, as a ticket carries it: the node's own pods (State 2,
// OutBoundNAT and ROUTE policies) and PerNode remote endpoints (State 1, a
// PA policy) of every other node, V1 objects as Get-HnsEndpoint prints them.
type EndpointPaste struct {
	Nodes   int
	PerNode int // 30 when zero
}

// Paste files WriteEndpointPaste writes.
const (
	PasteListFile = "endpoints-list.txt" // the console's Format-List text (CRLF)
	PasteJSONFile = "endpoints.json"     // the same endpoints piped to ConvertTo-Json
)

// pasteEndpoint is one V1 endpoint in the order Get-HnsEndpoint prints its
// properties; Policies holds either the local or the remote shape.
type pasteEndpoint struct {
	ID                 string
	Name               string
	Version            int64
	AdditionalParams   string
	State              int
	VirtualNetwork     string
	VirtualNetworkName string
	Policies           []map[string]any
	MacAddress         string
	IPAddress          string
	PrefixLength       int
	IsRemoteEndpoint   bool
	EncapOverhead      int
	SharedContainers   []string
}

func pasteEndpoints(p EndpointPaste) []pasteEndpoint {
	per := p.PerNode
	if per == 0 {
		per = 30
	}
	networkID := guid(9, 0)
	var eps []pasteEndpoint
	for n := range p.Nodes {
		pa := fmt.Sprintf("10.%d.%d.4", n/250, n%250)
		for i := range per {
			a, b, c := 244+n/256, n%256, i+2
			ip := fmt.Sprintf("10.%d.%d.%d", a, b, c)
			ep := pasteEndpoint{
				ID: guid(10, n*per+i), Name: "Ethernet", Version: 64424509440, State: 1,
				VirtualNetwork: networkID, VirtualNetworkName: "flannel.4096",
				Policies:   []map[string]any{{"Type": "PA", "PA": pa}},
				MacAddress: fmt.Sprintf("02-11-0a-%02x-%02x-%02x", a, b, c), IPAddress: ip, PrefixLength: 24,
				IsRemoteEndpoint: true, EncapOverhead: 50, SharedContainers: []string{},
			}
			if n == 0 {
				ep.Name, ep.State, ep.IsRemoteEndpoint = fmt.Sprintf("%d-%d-%d-%d_pod%d", 10, a, b, c, i), 2, false
				ep.Policies = []map[string]any{
					{"Type": "OutBoundNAT", "ExceptionList": []string{"10.244.0.0/16", "10.96.0.0/12", "10.0.0.0/24"}},
					{"Type": "ROUTE", "DestinationPrefix": "10.96.0.0/12", "NeedEncap": true},
				}
			}
			eps = append(eps, ep)
		}
	}
	return eps
}

// WriteEndpointPaste writes PasteListFile and PasteJSONFile into dir: the
// same endpoints in the two shapes, for the benchmarks that compare reading
// console text with reading JSON.
func WriteEndpointPaste(dir string, p EndpointPaste) error {
	eps := pasteEndpoints(p)
	js, err := json.MarshalIndent(eps, "", "    ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, PasteJSONFile), []byte(strings.ReplaceAll(string(js), "\n", "\r\n"))); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, PasteListFile))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	writeFormatList(w, eps)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeFormatList prints eps as PowerShell's Format-List does: keys padded
// to the longest, policies as @{...} hashtables whose lists show as
// System.Object[], empty lists as {}, a prompt before and after.
func writeFormatList(w *bufio.Writer, eps []pasteEndpoint) {
	const width = len("VirtualNetworkName")
	line := func(k, v string) {
		fmt.Fprintf(w, "%s\r\n", strings.TrimRight(fmt.Sprintf("%-*s : %s", width, k, v), " "))
	}
	fmt.Fprint(w, "PS C:\\k> Get-HnsEndpoint\r\n\r\n")
	for _, ep := range eps {
		line("ID", ep.ID)
		line("Name", ep.Name)
		line("Version", fmt.Sprint(ep.Version))
		line("AdditionalParams", ep.AdditionalParams)
		line("State", fmt.Sprint(ep.State))
		line("VirtualNetwork", ep.VirtualNetwork)
		line("VirtualNetworkName", ep.VirtualNetworkName)
		var pols []string
		for _, p := range ep.Policies {
			var kv []string
			for _, k := range []string{"Type", "PA", "ExceptionList", "DestinationPrefix", "NeedEncap"} {
				switch v := p[k].(type) {
				case nil:
				case []string:
					kv = append(kv, k+"=System.Object[]")
				case bool:
					kv = append(kv, k+"="+map[bool]string{true: "True", false: "False"}[v])
				default:
					kv = append(kv, fmt.Sprint(k, "=", v))
				}
			}
			pols = append(pols, "@{"+strings.Join(kv, "; ")+"}")
		}
		line("Policies", "{"+strings.Join(pols, ", ")+"}")
		line("MacAddress", ep.MacAddress)
		line("IPAddress", ep.IPAddress)
		line("PrefixLength", fmt.Sprint(ep.PrefixLength))
		line("IsRemoteEndpoint", map[bool]string{true: "True", false: "False"}[ep.IsRemoteEndpoint])
		line("EncapOverhead", fmt.Sprint(ep.EncapOverhead))
		line("SharedContainers", "{}")
		fmt.Fprint(w, "\r\n")
	}
	fmt.Fprint(w, "PS C:\\k>\r\n")
}
