package gen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEndpointPaste: the text and the JSON hold the same endpoints, the
// text as the console prints it (CRLF, padded keys, a prompt before and
// after, one blank line after each record).
func TestEndpointPaste(t *testing.T) {
	dir := t.TempDir()
	if err := WriteEndpointPaste(dir, EndpointPaste{Nodes: 3, PerNode: 2}); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, PasteJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var eps []map[string]any
	if err := json.Unmarshal(js, &eps); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, PasteListFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 6 || bytes.Count(text, []byte("\r\nID                 : ")) != 6 {
		t.Fatalf("%d endpoints in the JSON, %d records in the text", len(eps), bytes.Count(text, []byte("\r\nID ")))
	}
	if bytes.Count(text, []byte("\n")) != bytes.Count(text, []byte("\r\n")) || !bytes.HasPrefix(text, []byte("PS C:\\k> Get-HnsEndpoint\r\n\r\n")) ||
		!bytes.HasSuffix(text, []byte("\r\n\r\nPS C:\\k>\r\n")) {
		t.Errorf("not console text:\n%s", text)
	}
	for _, ep := range eps {
		id, _ := ep["ID"].(string)
		ip, _ := ep["IPAddress"].(string)
		if !bytes.Contains(text, []byte("ID                 : "+id+"\r\n")) || !bytes.Contains(text, []byte("IPAddress          : "+ip+"\r\n")) {
			t.Errorf("endpoint %s (%s) is not in the text", id, ip)
		}
	}
	if first := eps[0]; first["IsRemoteEndpoint"] != false || first["State"] != float64(2) || eps[5]["IsRemoteEndpoint"] != true {
		t.Errorf("the first node's endpoints are its own, the others remote: %v, %v", first, eps[5])
	}
	if !bytes.Contains(text, []byte("Policies           : {@{Type=OutBoundNAT; ExceptionList=System.Object[]}, @{Type=ROUTE; DestinationPrefix=10.96.0.0/12; NeedEncap=True}}\r\n")) ||
		!bytes.Contains(text, []byte("Policies           : {@{Type=PA; PA=10.0.1.4}}\r\n")) {
		t.Errorf("policies not as Format-List prints them:\n%s", text)
	}
}
