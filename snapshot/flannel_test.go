package snapshot

import "testing"

var flannelBackendSeeds = []string{
	`{"VNI":4096,"VtepMAC":"0e:2a:0a:f4:01:00"}`,
	` { "VtepMAC" : "0E-2A-0A-F4-01-00" , "VNI" : 1 } `,
	`{"VNID":4097,"VtepMAC":"0e:2a:0a:f4:01:00"}`,
	`{"VNI":null,"VNID":7}`,
	`{"VNI":"4096","VtepMAC":12}`,
	`{"VNI":true,"VtepMAC":false}`,
	`{"VNI":-3}`,
	`{"VNI":0x10}`,
	`{"VNI":010}`,
	`{"VNI":4096.0}`,
	`{"VNI":1e3}`,
	`{"vni":4096,"vtepmac":"0e:2a:0a:f4:01:00"}`,
	`{"VNI":1,"VNI":2}`,
	`{"VNI":1,"vni":2}`,
	`{"VtepMAC":"0e:2a:0a:f4:01:00\u0000"}`,
	`{"VtepMAC":"\u00e9"}`,
	`{"VNI":4096,"Extra":{"a":[1,2]}}`,
	`{"VNI":4096} trailing`,
	`{"VNI":4096,}`,
	`{"VNI" 4096}`,
	`{"VNI":4096`,
	`{}`,
	`  {}  `,
	`null`,
	`[]`,
	``,
	`not json`,
	`{"VNI":tru}`,
	`{"VNI":truex}`,
	`{"VNI":-}`,
	`{"VNI":9223372036854775808}`,
	"{\"VtepMAC\":\"a\xffb\"}",
}

// The scan reads what it accepts exactly as the decoder would.
func TestFlannelBackendScanMatchesDecoder(t *testing.T) {
	for _, raw := range flannelBackendSeeds {
		checkFlannelBackendScan(t, raw)
	}
	if _, ok := scanFlannelBackend(flannelBackendSeeds[0]); !ok {
		t.Error("flannel's own form was not scanned")
	}
	if _, ok := scanFlannelBackend(`{"vni":1}`); ok {
		t.Error("a key in another case was scanned")
	}
}

func FuzzFlannelBackendScan(f *testing.F) {
	for _, raw := range flannelBackendSeeds {
		f.Add(raw)
	}
	f.Fuzz(checkFlannelBackendScan)
}

func checkFlannelBackendScan(t *testing.T, raw string) {
	n := &KubeNode{Annotations: SortedPairs(Pair{AnnotationFlannelBackendData, raw})}
	vni, mac, ok := n.FlannelBackend()
	wvni, wmac, wok := decodeFlannelBackend(raw)
	if vni != wvni || mac != wmac || ok != wok {
		t.Errorf("%q: scanned %d %q %v, decoded %d %q %v", raw, vni, mac, ok, wvni, wmac, wok)
	}
}
