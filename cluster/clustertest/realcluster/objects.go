package realcluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// resources maps a kind to its API path: the few kinds the tests apply.
var resources = map[string]struct {
	group, resource string
	namespaced      bool
}{
	"Namespace":                        {"/api/v1", "namespaces", false},
	"ServiceAccount":                   {"/api/v1", "serviceaccounts", true},
	"Node":                             {"/api/v1", "nodes", false},
	"Pod":                              {"/api/v1", "pods", true},
	"ClusterRole":                      {"/apis/rbac.authorization.k8s.io/v1", "clusterroles", false},
	"ClusterRoleBinding":               {"/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", false},
	"Role":                             {"/apis/rbac.authorization.k8s.io/v1", "roles", true},
	"RoleBinding":                      {"/apis/rbac.authorization.k8s.io/v1", "rolebindings", true},
	"CustomResourceDefinition":         {"/apis/apiextensions.k8s.io/v1", "customresourcedefinitions", false},
	"ValidatingAdmissionPolicy":        {"/apis/admissionregistration.k8s.io/v1", "validatingadmissionpolicies", false},
	"ValidatingAdmissionPolicyBinding": {"/apis/admissionregistration.k8s.io/v1", "validatingadmissionpolicybindings", false},
	"Exec":                             {"/apis/kwok.x-k8s.io/v1alpha1", "execs", true},
}

// Apply applies a multi-document YAML as kubectl apply --server-side does
// (one apply patch per object), as the user cfg speaks for.
func (cp *ControlPlane) Apply(cfg *rest.Config, manifests string) error {
	for _, doc := range strings.Split("\n"+manifests, "\n---") {
		data, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return fmt.Errorf("apply: %w", err)
		}
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name, Namespace string
			} `json:"metadata"`
		}
		if err := json.Unmarshal(data, &obj); err != nil || obj.Kind == "" {
			continue // a document of comments only
		}
		path, err := objectPath(obj.Kind, obj.Metadata.Namespace, obj.Metadata.Name)
		if err != nil {
			return err
		}
		if _, err := cp.Do(cfg, http.MethodPatch, path+"?fieldManager=diag-test&force=true", "application/apply-patch+yaml", data); err != nil {
			return fmt.Errorf("apply %s %s: %w", obj.Kind, obj.Metadata.Name, err)
		}
	}
	return nil
}

func objectPath(kind, namespace, name string) (string, error) {
	r, ok := resources[kind]
	if !ok {
		return "", fmt.Errorf("apply: kind %s is not one the tests know", kind)
	}
	p := r.group
	if r.namespaced {
		if namespace == "" {
			namespace = "default"
		}
		p += "/namespaces/" + url.PathEscape(namespace)
	}
	p += "/" + r.resource
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	return p, nil
}

// StatusError is a non-2xx answer.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Body) }

// Do sends one request as cfg's user and returns the answer's body.
func (cp *ControlPlane) Do(cfg *rest.Config, method, path, contentType string, body []byte) ([]byte, error) {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, cp.Server+path, rd)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return data, &StatusError{Code: resp.StatusCode, Body: strings.TrimSpace(string(data))}
	}
	return data, nil
}

// Get reads path as cfg's user.
func (cp *ControlPlane) Get(cfg *rest.Config, path string) ([]byte, error) {
	return cp.Do(cfg, http.MethodGet, path, "", nil)
}

// NodeSpec is a test node: kwok's (a kubelet that runs pods and answers
// exec with the stand-in behaving as Behave) or, with NoKubelet, one that
// is Ready but has no kubelet.
type NodeSpec struct {
	Name      string
	OS        string // windows or linux
	Behave    string // the stand-in's behaviour in its pods ("" is ok)
	NoKubelet bool
}

// AddNodes creates the nodes and waits until each is Ready.
func (cp *ControlPlane) AddNodes(nodes ...NodeSpec) error {
	for _, n := range nodes {
		labels := map[string]string{"kubernetes.io/os": n.OS, "kubernetes.io/hostname": n.Name}
		if !n.NoKubelet {
			labels[LabelKwok] = "true"
			labels[LabelBehave] = orDefault(n.Behave, "ok")
		}
		obj := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": n.Name, "labels": labels}}
		data, _ := json.Marshal(obj)
		if _, err := cp.Do(cp.Admin, http.MethodPost, "/api/v1/nodes", "application/json", data); err != nil {
			return fmt.Errorf("create node %s: %w", n.Name, err)
		}
		if n.NoKubelet {
			// Ready as its last report said: nothing updates it (no node
			// controller runs), as when a kubelet hangs after its report.
			status := map[string]any{"status": map[string]any{
				"conditions": []map[string]any{{"type": "Ready", "status": "True", "reason": "KubeletReady"}},
				"nodeInfo":   map[string]any{"operatingSystem": n.OS},
			}}
			data, _ := json.Marshal(status)
			if _, err := cp.Do(cp.Admin, http.MethodPatch, "/api/v1/nodes/"+n.Name+"/status", "application/merge-patch+json", data); err != nil {
				return fmt.Errorf("node %s status: %w", n.Name, err)
			}
		}
	}
	return cp.waitNodesReady(nodes)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Allowed asks the API server (SubjectAccessReview) whether user may do
// verb on resource, cluster-wide when namespace is "".
func (cp *ControlPlane) Allowed(user, verb, resource, namespace string) bool {
	review := map[string]any{
		"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
		"spec": map[string]any{"user": user, "resourceAttributes": map[string]string{"verb": verb, "resource": resource, "namespace": namespace}},
	}
	if strings.HasPrefix(user, "system:serviceaccount:") {
		ns := strings.Split(user, ":")[2]
		review["spec"].(map[string]any)["groups"] = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	}
	body, _ := json.Marshal(review)
	data, err := cp.Do(cp.Admin, http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", "application/json", body)
	if err != nil {
		cp.t.Fatalf("subjectaccessreview: %v", err)
	}
	var out struct {
		Status struct {
			Allowed bool `json:"allowed"`
		} `json:"status"`
	}
	_ = json.Unmarshal(data, &out)
	return out.Status.Allowed
}

// ProbePod is a collector-like pod for an OS, on node when not "": what
// WaitRefused asks about.
func ProbePod(os, node string) map[string]any {
	spec := map[string]any{"containers": []map[string]any{{"name": "c", "image": "x"}}, "nodeSelector": map[string]string{"kubernetes.io/os": os},
		"serviceAccountName": "diag", "automountServiceAccountToken": false}
	if node != "" {
		spec["nodeName"] = node
	}
	if os == "windows" {
		spec["hostNetwork"] = true
		spec["securityContext"] = map[string]any{"windowsOptions": map[string]any{"hostProcess": true, "runAsUserName": `NT AUTHORITY\SYSTEM`}}
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "probe"}, "spec": spec}
}

// WaitRefused waits until pod is refused in namespace with a message
// naming what (an admission policy that has just been made takes a moment
// to be in force). It asks with dryRun: nothing is made.
func (cp *ControlPlane) WaitRefused(namespace string, pod map[string]any, what string) error {
	body, _ := json.Marshal(pod)
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		_, err = cp.Do(cp.Admin, http.MethodPost, "/api/v1/namespaces/"+namespace+"/pods?dryRun=All", "application/json", body)
		if err != nil && strings.Contains(err.Error(), what) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("no refusal naming %q in 30s (last: %v)", what, err)
}
