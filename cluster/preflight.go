package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Permission is one thing a collection asks the API server to do.
type Permission struct {
	Verb, Resource, Subresource string
	Namespaced                  bool
}

func (p Permission) String() string {
	r := p.Resource
	if p.Subresource != "" {
		r += "/" + p.Subresource
	}
	return p.Verb + " " + r
}

// Needed are the requests a collection sends (deploy/cluster-rbac.yaml
// grants them): the nodes are read before this is asked; the run's pods
// are made, followed by one list and watch, exec'd into and deleted.
var Needed = []Permission{
	{Verb: "create", Resource: "pods", Namespaced: true},
	{Verb: "list", Resource: "pods", Namespaced: true},
	{Verb: "watch", Resource: "pods", Namespaced: true},
	{Verb: "delete", Resource: "pods", Namespaced: true},
	{Verb: "create", Resource: "pods", Subresource: "exec", Namespaced: true},
}

// Missing asks the API server (SelfSubjectAccessReview, which every
// authenticated user may send) which of perms this user lacks in
// namespace, so that a run without them stops before it makes a pod. An
// error means the server could not say; the run then goes on and meets
// any refusal as it comes.
func (a *API) Missing(ctx context.Context, namespace string, perms []Permission) ([]Permission, error) {
	var out []Permission
	for _, p := range perms {
		attrs := map[string]string{"verb": p.Verb, "resource": p.Resource, "subresource": p.Subresource}
		if p.Namespaced {
			attrs["namespace"] = namespace
		}
		body, err := json.Marshal(map[string]any{
			"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
			"spec": map[string]any{"resourceAttributes": attrs},
		})
		if err != nil {
			return nil, err
		}
		var review struct {
			Status struct {
				Allowed bool `json:"allowed"`
			} `json:"status"`
		}
		if err := a.do(ctx, http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "create", "selfsubjectaccessreviews", body, &review); err != nil {
			return nil, err
		}
		if !review.Status.Allowed {
			out = append(out, p)
		}
	}
	return out, nil
}

// MissingError: the user lacks permissions a collection needs.
type MissingError struct {
	Namespace string
	Missing   []Permission
}

func (e *MissingError) Error() string {
	s := ""
	for i, p := range e.Missing {
		if i > 0 {
			s += ", "
		}
		s += p.String()
	}
	if len(e.Missing) == len(Needed) {
		// Nothing at all in that namespace: most often not the one meant.
		return fmt.Sprintf("permission denied: this user may do nothing a collection needs in namespace %s (%s): is --namespace right? (diag collect --cluster --print-rbac --namespace %s prints the RBAC it needs); no pod was made", e.Namespace, s, e.Namespace)
	}
	return fmt.Sprintf("permission denied: this user may not %s in namespace %s (diag collect --cluster --print-rbac --namespace %s prints the RBAC it needs); no pod was made", s, e.Namespace, e.Namespace)
}
