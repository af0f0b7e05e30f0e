package formats

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wincni/diag/snapshot"
)

func readCNI(t *testing.T, name string) *snapshot.CNIConfig {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cni", name))
	if err != nil {
		t.Fatal(err)
	}
	return ParseCNIConfig(data, name)
}

func TestParseCNIConfig(t *testing.T) {
	cases := []struct {
		file        string
		name        string
		plugins     []string
		exceptions  []string
		nameservers []string
		nat         bool
	}{
		{"10-flannel.conf", "vxlan0", []string{"flannel", "win-overlay"}, []string{"10.244.0.0/16", "10.96.0.0/12"}, nil, false},
		{"10-calico.conflist", "Calico", []string{"calico"}, []string{"192.168.0.0/16", "10.96.0.1/12"}, []string{"10.96.0.10"}, false},
		{"0-containerd-nat.json", "nat", []string{"nat"}, nil, nil, true},
	}
	for _, c := range cases {
		got := readCNI(t, c.file)
		if got.Invalid != "" {
			t.Fatalf("%s: invalid: %s", c.file, got.Invalid)
		}
		if got.Name != c.name || !slices.Equal(got.Plugins, c.plugins) || got.IsNAT() != c.nat {
			t.Errorf("%s: name %q plugins %v nat %v; want %q %v %v", c.file, got.Name, got.Plugins, got.IsNAT(), c.name, c.plugins, c.nat)
		}
		if !slices.Equal(got.Exceptions, c.exceptions) || !slices.Equal(got.Nameservers, c.nameservers) {
			t.Errorf("%s: exceptions %v nameservers %v; want %v %v", c.file, got.Exceptions, got.Nameservers, c.exceptions, c.nameservers)
		}
	}
}

func TestParseCNIConfigInvalid(t *testing.T) {
	for _, in := range []string{``, `[1,2]`, `{"name": "x",`, "\xff\xfe{\x00"} {
		if c := ParseCNIConfig([]byte(in), "bad.conf"); c.Invalid == "" {
			t.Errorf("%q: want Invalid set, got %+v", in, c)
		}
	}
}

func TestParseFlannelNetConf(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cni", "net-conf.json"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := ParseFlannelNetConf(data, "net-conf.json")
	if err != nil {
		t.Fatal(err)
	}
	want := snapshot.FlannelNetConf{File: "net-conf.json", Network: "10.244.0.0/16", BackendType: "vxlan", BackendName: "vxlan0", Port: 8472, VNI: 4096}
	if *n != want {
		t.Errorf("got %+v, want %+v", *n, want)
	}
	if _, err := ParseFlannelNetConf([]byte(`{"Backend": "vxlan"}`), "x"); err == nil {
		t.Error("a string Backend must be an error")
	}
}

func FuzzParseCNIConfig(f *testing.F) {
	addSeeds(f, "testdata/cni/10-flannel.conf", "testdata/cni/10-calico.conflist", "testdata/cni/0-containerd-nat.json", "testdata/cni/net-conf.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		c := ParseCNIConfig(data, "f")
		if c.Invalid == "" {
			c.IsNAT()
		}
		ParseFlannelNetConf(data, "f")
	})
}
