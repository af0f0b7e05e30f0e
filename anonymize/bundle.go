package anonymize

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/snapshot"
)

// AddSnapshotNames registers the names a snapshot of the input holds: the
// node's own (manifest, OS host name, kube-proxy's --hostname-override),
// every Kubernetes Node, and the namespaces and names of Services,
// EndpointSlices and this node's Pods that are not the cluster's own
// (kube-system, kube-dns...).
func (a *Anonymizer) AddSnapshotNames(s *snapshot.Snapshot) {
	if s == nil {
		return
	}
	a.AddName(KindHost, s.NodeName())
	if s.Manifest != nil {
		a.AddName(KindHost, s.Manifest.Node)
	}
	if s.OS != nil {
		a.AddName(KindHost, s.OS.Hostname)
	}
	if s.KubeProxy != nil {
		a.AddName(KindHost, s.KubeProxy.Hostname)
		a.AddName(KindHost, s.KubeProxy.Flags["hostname-override"])
	}
	for _, n := range s.KubeNodes {
		a.AddName(KindHost, n.Name)
	}
	// The cluster's own namespaces hold the cluster's own objects; in
	// default and the rest, the names are the customer's (AddName keeps
	// the well-known ones, such as kubernetes in default).
	for _, sv := range s.Services {
		if !systemNamespace(sv.Namespace) {
			a.AddName(KindNamespace, sv.Namespace)
			a.AddName(KindName, sv.Name)
		}
	}
	for _, p := range s.Pods {
		if !systemNamespace(p.Namespace) {
			a.AddName(KindNamespace, p.Namespace)
			if strings.Contains(p.Name, "-") { // controller-made names; a bare word may be anything
				a.AddName(KindName, p.Name)
			}
		}
	}
	for _, sl := range s.EndpointSlices {
		if !systemNamespace(sl.Namespace) {
			a.AddName(KindNamespace, sl.Namespace)
			a.AddName(KindName, sl.Service)
		}
		for _, e := range sl.Endpoints {
			a.AddName(KindHost, e.NodeName)
		}
	}
}

// systemNamespace: a namespace of the cluster's own components.
func systemNamespace(ns string) bool {
	ns = strings.ToLower(ns)
	return ns != "default" && wellKnown[ns]
}

// Filter wraps the redaction filter of diag bundle redact: what it keeps
// as text has its addresses, MACs and names replaced, a capture it keeps
// whole is rewritten packet by packet, and every file name is mapped too
// (collectlogs names files after the node).
func (a *Anonymizer) Filter(redact bundle.Filter) bundle.Filter {
	return func(e *bundle.RewriteEntry) (bundle.Outcome, error) {
		out, err := redact(e)
		if err != nil {
			return out, err
		}
		name := a.entryName(e.Name)
		switch out.Action {
		case bundle.Omit:
			return out, nil
		case bundle.Replace:
			out.Data = a.Text(out.Data)
		case bundle.Copy:
			if e.Size > MaxCapture {
				return bundle.Outcome{Action: bundle.Omit, Reason: fmt.Sprintf("capture of %d MiB, over the %d MiB anonymize rewrites at once, left out (not anonymized)", e.Size>>20, MaxCapture>>20)}, nil
			}
			data, err := e.ReadAll()
			if err != nil {
				return bundle.Outcome{}, err
			}
			clean, err := a.Capture(data)
			if err != nil {
				return bundle.Outcome{Action: bundle.Omit, Reason: fmt.Sprintf("capture that cannot be read to the end (%v), left out (not anonymized)", err)}, nil
			}
			out = bundle.Outcome{Action: bundle.Replace, Data: clean}
		}
		if name != e.Name {
			out.Name = name
		}
		return out, nil
	}
}

// entryName maps the names inside a path, element by element.
func (a *Anonymizer) entryName(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = a.String(p)
	}
	out := path.Join(parts...)
	if bundle.ValidName(out) != nil {
		return name
	}
	return out
}

// Manifest anonymizes the free text of a manifest written for the output:
// the node, the description, option values and collector messages and
// file lists.
func (a *Anonymizer) Manifest(m *manifest.Manifest) {
	m.Node = a.WholeName(m.Node)
	m.Description = a.String(m.Description)
	for k, v := range m.Options {
		m.Options[k] = a.String(v)
	}
	for i := range m.Collectors {
		c := &m.Collectors[i]
		c.Error = a.String(c.Error)
		for j, f := range c.Files {
			c.Files[j] = a.entryName(f)
		}
	}
}

// WriteMapping writes the mapping as JSON: original → pseudonym per kind,
// sorted.
func WriteMapping(w io.Writer, m Mapping) error {
	pairs := func(p [][2]string) map[string]string {
		out := map[string]string{}
		for _, kv := range p {
			out[kv[0]] = kv[1]
		}
		return out
	}
	b, err := json.MarshalIndent(struct {
		KeyID     string            `json:"keyID"`
		Addresses map[string]string `json:"addresses"`
		MACs      map[string]string `json:"macs"`
		Names     map[string]string `json:"names"`
		Keywords  map[string]string `json:"keywords,omitempty"`
	}{m.KeyID, pairs(m.Addresses), pairs(m.MACs), pairs(m.Names), pairs(m.Keywords)}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
