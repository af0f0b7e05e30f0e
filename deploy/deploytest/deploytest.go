package deploytest

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// Doc is one document of a manifest.
type Doc struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Rules []struct {
		APIGroups []string `json:"apiGroups"`
		Resources []string `json:"resources"`
		Verbs     []string `json:"verbs"`
	} `json:"rules"`
	Spec struct {
		Template struct {
			Spec struct {
				HostNetwork     bool `json:"hostNetwork"`
				SecurityContext struct {
					WindowsOptions struct {
						HostProcess   bool   `json:"hostProcess"`
						RunAsUserName string `json:"runAsUserName"`
					} `json:"windowsOptions"`
				} `json:"securityContext"`
				NodeSelector map[string]string `json:"nodeSelector"`
				Containers   []struct {
					Command []string `json:"command"`
					Args    []string `json:"args"`
					Env     []struct {
						Name      string `json:"name"`
						ValueFrom struct {
							FieldRef struct {
								FieldPath string `json:"fieldPath"`
							} `json:"fieldRef"`
						} `json:"valueFrom"`
					} `json:"env"`
					LivenessProbe, ReadinessProbe struct {
						HTTPGet struct {
							Path string `json:"path"`
							Port int    `json:"port"`
						} `json:"httpGet"`
					}
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
		Groups []struct {
			Rules []struct {
				Alert string `json:"alert"`
				Expr  string `json:"expr"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// Read reads the documents of the manifest at path ("---" between them);
// a document that is not YAML fails the test.
func Read(t testing.TB, path string) []Doc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	for _, part := range strings.Split(string(data), "\n---\n") {
		var d Doc
		if err := yaml.Unmarshal([]byte(part), &d); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
	return docs
}
