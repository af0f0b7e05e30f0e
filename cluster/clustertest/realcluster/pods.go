package realcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ManagedBySelector finds every pod diag collect --cluster makes.
const ManagedBySelector = "app.kubernetes.io/managed-by=diag-collect-cluster"

type podList struct {
	Items []Pod `json:"items"`
}

// Pod is what the tests read of a pod: where it is and whether it is
// going (cluster's own reading of its pods, for a watch, is another).
type Pod struct {
	Metadata struct {
		Name              string     `json:"name"`
		Namespace         string     `json:"namespace"`
		DeletionTimestamp *time.Time `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

// Pods lists the pods diag made, in every namespace and state.
func (cp *ControlPlane) Pods() ([]Pod, error) {
	data, err := cp.Get(cp.Admin, "/api/v1/pods?labelSelector="+url.QueryEscape(ManagedBySelector))
	if err != nil {
		return nil, err
	}
	var l podList
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, err
	}
	return l.Items, nil
}

// PodsLeft lists, as namespace/name (Terminating), the pods diag made that
// are still there a moment after a run: the same settle time for every
// scenario, so a create that landed after the run ended is seen too.
func (cp *ControlPlane) PodsLeft() []string {
	time.Sleep(2 * time.Second)
	pods, err := cp.Pods()
	if err != nil {
		cp.t.Fatalf("list pods: %v", err)
	}
	var out []string
	for _, p := range pods {
		s := p.Metadata.Namespace + "/" + p.Metadata.Name + " " + p.Status.Phase
		if p.Metadata.DeletionTimestamp != nil {
			s += " Terminating"
		}
		out = append(out, s)
	}
	return out
}

// ForceDeleteAll removes what a scenario left, so the next one starts
// clean (pods on nodes without a kubelet stay Terminating otherwise).
func (cp *ControlPlane) ForceDeleteAll() {
	pods, err := cp.Pods()
	if err != nil {
		cp.t.Fatalf("list pods: %v", err)
	}
	body := []byte(`{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}`)
	for _, p := range pods {
		_, _ = cp.Do(cp.Admin, http.MethodDelete, "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name, "application/json", body)
	}
}

func (cp *ControlPlane) waitNodesReady(nodes []NodeSpec) error {
	deadline := time.Now().Add(60 * time.Second)
	for _, n := range nodes {
		for {
			data, err := cp.Get(cp.Admin, "/api/v1/nodes/"+n.Name)
			if err == nil && strings.Contains(string(data), `"type":"Ready","status":"True"`) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("node %s not Ready in 60s (%v)", n.Name, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// RunKubelet plays the part of a kubelet's configuration for kwok until
// ctx ends: for each new pod diag makes on a kwok node it makes the Exec
// object that runs the stand-in with the node's name and behaviour, then
// lets kwok start the pod. diag is the diag binary the stand-in runs.
func (cp *ControlPlane) RunKubelet(ctx context.Context, diag string) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		seen := map[string]bool{}
		for ctx.Err() == nil {
			pods, err := cp.Pods()
			if err == nil {
				for _, p := range pods {
					key := p.Metadata.Namespace + "/" + p.Metadata.Name
					if seen[key] || p.Spec.NodeName == "" || p.Metadata.DeletionTimestamp != nil {
						continue
					}
					seen[key] = true
					wg.Add(1)
					go func() {
						defer wg.Done()
						var se *StatusError
						if err := cp.prepareExec(p, diag); err != nil && ctx.Err() == nil && !(errors.As(err, &se) && se.Code == http.StatusNotFound) {
							cp.t.Logf("kubelet stand-in: %s: %v", key, err)
						}
					}()
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	cp.t.Cleanup(func() { cancel(); wg.Wait() })
}

func (cp *ControlPlane) prepareExec(p Pod, diag string) error {
	data, err := cp.Get(cp.Admin, "/api/v1/nodes/"+url.PathEscape(p.Spec.NodeName))
	if err != nil {
		return err
	}
	var node struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &node); err != nil {
		return err
	}
	if node.Metadata.Labels[LabelKwok] != "true" {
		return nil // no kubelet: the pod stays Pending
	}
	work := filepath.Join(cp.dir, "exec", p.Metadata.Name)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	exec := map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Exec",
		"metadata": map[string]any{"name": p.Metadata.Name, "namespace": p.Metadata.Namespace},
		"spec": map[string]any{"execs": []map[string]any{{
			"local": map[string]any{"workDir": work, "envs": []map[string]string{
				{"name": "NODE_NAME", "value": p.Spec.NodeName},
				{"name": "DIAG_STANDIN_BEHAVE", "value": orDefault(node.Metadata.Labels[LabelBehave], "ok")},
				{"name": "DIAG_STANDIN_DIAG", "value": diag},
			}},
		}}},
	}
	body, _ := json.Marshal(exec)
	path := "/apis/kwok.x-k8s.io/v1alpha1/namespaces/" + url.PathEscape(p.Metadata.Namespace) + "/execs"
	if _, err := cp.Do(cp.Admin, http.MethodPost, path, "application/json", body); err != nil {
		return fmt.Errorf("exec object: %w", err)
	}
	// kwok reads Exec objects through its own watch: give it the moment it
	// needs before the pod runs and diag execs into it.
	time.Sleep(300 * time.Millisecond)
	patch := []byte(`{"metadata":{"annotations":{"` + annotationExecReady + `":"true"}}}`)
	_, err = cp.Do(cp.Admin, http.MethodPatch, "/api/v1/namespaces/"+url.PathEscape(p.Metadata.Namespace)+"/pods/"+url.PathEscape(p.Metadata.Name), "application/merge-patch+json", patch)
	return err
}

// installStandin puts the stand-in collector on kwok's PATH under the
// names the collector pods' commands use: cmd.exe (Windows pods) and diag
// (Linux pods).
func installStandin(dir, standin string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"cmd.exe", "diag"} {
		if err := os.Symlink(standin, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}
