package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/streaming/pkg/httpstream"
)

// API is the little of the Kubernetes API a cluster collection uses, over
// client-go's authenticated transport: nodes and events to choose from,
// pods to create, watch, exec into and delete.
type API struct {
	cfg    *rest.Config
	client *http.Client
	base   string
	// Attempts is how many times a transient failure (429, 5xx, the
	// connection) is tried before it is returned.
	Attempts int
	backoff  time.Duration
}

// NewAPI builds the client; a request's own deadline comes from its context.
func NewAPI(cfg *rest.Config) (*API, error) {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("API client for %s: %w", cfg.Host, err)
	}
	host := cfg.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	return &API{cfg: cfg, client: client, base: strings.TrimRight(host, "/") + cfg.APIPath, Attempts: 4, backoff: 250 * time.Millisecond}, nil
}

// APIError is an answer of the API server other than success.
type APIError struct {
	Code     int
	Verb     string
	Resource string // "pods", "pods/exec", "nodes"
	Message  string // the server's own, which names the user and the permission
}

func (e *APIError) Error() string {
	what := e.Verb + " " + e.Resource
	switch {
	case e.Code == http.StatusForbidden && e.podSecurity():
		return fmt.Sprintf("Pod Security admission refused to %s: %s (the namespace must admit privileged and HostProcess pods: pod-security.kubernetes.io/enforce=privileged, as diag collect --cluster --print-rbac sets)", what, e.Message)
	case e.Code == http.StatusForbidden && e.missingServiceAccount():
		return fmt.Sprintf("the API server refused to %s: %s (diag collect --cluster --print-rbac | kubectl apply -f - makes the service account)", what, e.Message)
	case e.Code == http.StatusForbidden && e.namespaceTerminating():
		return fmt.Sprintf("the API server refused to %s: %s (the namespace is being deleted; once it is gone, diag collect --cluster --print-rbac --namespace NS | kubectl apply -f - makes it again)", what, e.Message)
	case e.Code == http.StatusForbidden && e.rbac():
		return fmt.Sprintf("permission denied to %s: %s (diag collect --cluster --print-rbac prints the RBAC it needs)", what, e.Message)
	case e.Code == http.StatusForbidden:
		// An admission policy or webhook: its own words are the story.
		return fmt.Sprintf("the API server's admission control refused to %s: %s", what, e.Message)
	case e.Code == http.StatusUnauthorized:
		return fmt.Sprintf("the API server does not accept these credentials (%s: %s): renew the kubeconfig's token or certificate", what, e.Message)
	case e.Code == http.StatusUnprocessableEntity && strings.Contains(e.Message, "disallowed by cluster policy"):
		return fmt.Sprintf("the API server refused to %s: %s (it runs without --allow-privileged, which HostProcess and host-network pods need)", what, e.Message)
	case e.Code == http.StatusUnprocessableEntity && (strings.Contains(e.Message, "is forbidden") || strings.Contains(e.Message, "denied request")):
		// An admission policy's denial can come as 422: its words, not
		// "invalid".
		return fmt.Sprintf("the API server's admission control refused to %s: %s", what, e.Message)
	case e.Code == http.StatusUnprocessableEntity:
		return fmt.Sprintf("the API server refused to %s as invalid: %s", what, e.Message)
	case e.Code == http.StatusNotFound && e.Resource == "pods" && e.Verb == "create":
		return fmt.Sprintf("the API server refused to %s: %s (diag collect --cluster --print-rbac --namespace NS | kubectl apply -f - makes the namespace)", what, e.Message)
	}
	return fmt.Sprintf("%s: %d %s", what, e.Code, e.Message)
}

// rbac: the authorizer's refusal ("User \"x\" cannot create resource ..."),
// which names the user and the permission; admission refusals do not.
func (e *APIError) rbac() bool {
	return strings.Contains(e.Message, " cannot ") && strings.Contains(e.Message, "resource \"")
}

func (e *APIError) podSecurity() bool { return strings.Contains(e.Message, "violates PodSecurity") }

func (e *APIError) missingServiceAccount() bool {
	return strings.Contains(e.Message, "error looking up service account")
}

// namespaceTerminating: the NamespaceLifecycle admission plugin refuses
// anything new in a namespace being deleted, whatever the pod.
func (e *APIError) namespaceTerminating() bool {
	return strings.Contains(e.Message, "because it is being terminated")
}

// Scope is how far an answer reaches: the node it was about, every node
// whose collector pod has the same spec (one per OS), or the whole run.
type Scope int

const (
	ScopeNode Scope = iota
	ScopeOS
	ScopeRun
)

// RefusalScope says which nodes an error answers for. Credentials, RBAC,
// a missing namespace or one being deleted, a missing service account
// answer for the run; admission
// (Pod Security, policies, webhooks) and validation judge the pod spec,
// which differs only by OS; anything else is the node's own.
func RefusalScope(err error) Scope {
	var ae *APIError
	if !errors.As(err, &ae) {
		return ScopeNode
	}
	switch {
	case ae.Code == http.StatusUnauthorized:
		return ScopeRun
	case ae.Code == http.StatusForbidden && (ae.rbac() || ae.missingServiceAccount() || ae.namespaceTerminating()):
		return ScopeRun
	case ae.Code == http.StatusForbidden:
		return ScopeOS
	case ae.Code == http.StatusNotFound && ae.Verb == "create" && ae.Resource == "pods":
		return ScopeRun // the namespace
	case ae.Verb == "create" && ae.Resource == "pods" && (ae.Code == http.StatusUnprocessableEntity || ae.Code == http.StatusBadRequest):
		return ScopeOS
	}
	return ScopeNode
}

// IsForbidden: RBAC or an admission plugin refused the request.
func IsForbidden(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusForbidden
}

// StopsRun: an answer every node would get alike (refused, or the
// credentials not accepted), so the run ends at the first.
func StopsRun(err error) bool { return RefusalScope(err) == ScopeRun }

// Definite: the server answered this request that it did not do it (a 4xx
// other than a conflict or a throttle), so nothing was created. A request
// given up because the run or the node's time ended is never definite,
// whatever ended them.
func Definite(err error) bool {
	var ie *InterruptedError
	if errors.As(err, &ie) {
		return false
	}
	var ae *APIError
	return errors.As(err, &ae) && ae.Code >= 400 && ae.Code < 500 && ae.Code != http.StatusConflict && ae.Code != http.StatusTooManyRequests
}

// InterruptedError is a request given up because its context ended: the
// server may or may not have done it. Cause says why (Ctrl-C, the node's
// time, another node's refusal); it is named, not wrapped, so that
// another node's answer is never taken for this request's.
type InterruptedError struct {
	What  string // "create pods"
	Cause error
	Last  error // the last transient failure before, if it was retried
	err   error // the context's own error
}

func (e *InterruptedError) Error() string {
	if e.Last != nil {
		return fmt.Sprintf("%s interrupted: %v (last answer: %v)", e.What, e.Cause, e.Last)
	}
	return fmt.Sprintf("%s interrupted: %v", e.What, e.Cause)
}

func (e *InterruptedError) Unwrap() error { return e.err }

func interrupted(ctx context.Context, what string, last error) error {
	return &InterruptedError{What: what, Cause: context.Cause(ctx), Last: last, err: ctx.Err()}
}

// UnreachableError: no answer from the API server at all.
type UnreachableError struct {
	What string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s: API server unreachable: %v", e.What, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// IsUnreachable: the API server did not answer.
func IsUnreachable(err error) bool {
	var ue *UnreachableError
	return errors.As(err, &ue)
}

// IsAlreadyExists: the object was there before the request.
func IsAlreadyExists(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusConflict
}

// IsNotFound: the object is gone.
func IsNotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusNotFound
}

func transient(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusInternalServerError || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// maxRetryAfter caps the wait a throttling server asks for.
const maxRetryAfter = 30 * time.Second

// maxAnswer bounds what one API answer may hold (a node list of a large
// cluster is tens of MB).
const maxAnswer = 512 << 20

// do sends one request, trying transient failures again with backoff, and
// decodes a JSON answer into out (when not nil).
func (a *API) do(ctx context.Context, method, path, verb, resource string, body []byte, out any) error {
	var last error
	var retryAfter time.Duration
	for attempt := 0; attempt < max(1, a.Attempts); attempt++ {
		if attempt > 0 {
			wait := a.backoff << (attempt - 1)
			wait += time.Duration(rand.Int64N(int64(wait)/2 + 1))
			wait = max(wait, retryAfter)
			select {
			case <-ctx.Done():
				return interrupted(ctx, verb+" "+resource, last)
			case <-time.After(wait):
			}
		}
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := a.client.Do(req)
		if err != nil {
			retryAfter = 0
			if ctx.Err() != nil {
				return interrupted(ctx, verb+" "+resource, last)
			}
			last = &UnreachableError{What: verb + " " + resource, Err: err}
			continue
		}
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			if rerr != nil {
				last = fmt.Errorf("%s %s: reading the answer: %w", verb, resource, rerr)
				continue
			}
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", verb, resource, err)
			}
			return nil
		case transient(resp.StatusCode):
			last = &APIError{Code: resp.StatusCode, Verb: verb, Resource: resource, Message: statusMessage(data, resp.Status)}
			retryAfter = 0
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
				retryAfter = min(time.Duration(s)*time.Second, maxRetryAfter)
			}
			continue
		default:
			return &APIError{Code: resp.StatusCode, Verb: verb, Resource: resource, Message: statusMessage(data, resp.Status)}
		}
	}
	return last
}

// statusMessage is a metav1.Status's message, else the HTTP status.
func statusMessage(body []byte, status string) string {
	var s struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &s) == nil && s.Message != "" {
		return s.Message
	}
	return status
}

// Node is what node selection reads of a Node.
type Node struct {
	Name        string
	OS          string // kubernetes.io/os
	Ready       string // the Ready condition: True, False, Unknown
	ReadyReason string
}

type nodeList struct {
	Items []struct {
		Metadata struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Status struct {
			Conditions []struct {
				Type, Status, Reason string
			} `json:"conditions"`
			NodeInfo struct {
				OperatingSystem string `json:"operatingSystem"`
			} `json:"nodeInfo"`
		} `json:"status"`
	} `json:"items"`
}

// Nodes lists the nodes, filtered by a label selector ("" for all).
func (a *API) Nodes(ctx context.Context, selector string) ([]Node, error) {
	path := "/api/v1/nodes"
	if selector != "" {
		path += "?labelSelector=" + url.QueryEscape(selector)
	}
	var l nodeList
	if err := a.do(ctx, http.MethodGet, path, "list", "nodes", nil, &l); err != nil {
		return nil, err
	}
	out := make([]Node, 0, len(l.Items))
	for _, it := range l.Items {
		n := Node{Name: it.Metadata.Name, Ready: "Unknown"}
		n.OS = it.Metadata.Labels["kubernetes.io/os"]
		if n.OS == "" {
			n.OS = it.Status.NodeInfo.OperatingSystem
		}
		for _, c := range it.Status.Conditions {
			if c.Type == "Ready" {
				n.Ready, n.ReadyReason = c.Status, c.Reason
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// SandboxFailures counts, per node, the kubelet's events of pod sandboxes
// it failed to create or network (FailedCreatePodSandBox, and
// FailedKillPod / NetworkNotReady) since a time.
func (a *API) SandboxFailures(ctx context.Context, since time.Time) (map[string]int, error) {
	out := map[string]int{}
	// One query per reason, selected by the server, a page at a time: a
	// large cluster's events are many, these few.
	for _, reason := range []string{"FailedCreatePodSandBox", "NetworkNotReady", "FailedKillPod"} {
		cont := ""
		for page := 0; page < maxEventPages; page++ {
			var l struct {
				Metadata struct {
					Continue string `json:"continue"`
				} `json:"metadata"`
				Items []struct {
					Reason        string    `json:"reason"`
					LastTimestamp time.Time `json:"lastTimestamp"`
					EventTime     time.Time `json:"eventTime"`
					Source        struct {
						Host string `json:"host"`
					} `json:"source"`
					ReportingInstance string `json:"reportingInstance"`
				} `json:"items"`
			}
			q := url.Values{}
			q.Set("fieldSelector", "type=Warning,reason="+reason)
			q.Set("limit", "500")
			if cont != "" {
				q.Set("continue", cont)
			}
			if err := a.do(ctx, http.MethodGet, "/api/v1/events?"+q.Encode(), "list", "events", nil, &l); err != nil {
				return nil, err
			}
			for _, ev := range l.Items {
				when := ev.LastTimestamp
				if when.IsZero() {
					when = ev.EventTime
				}
				node := ev.Source.Host
				if node == "" {
					node = ev.ReportingInstance
				}
				if node != "" && ev.Reason == reason && !when.Before(since) {
					out[node]++
				}
			}
			if cont = l.Metadata.Continue; cont == "" {
				break
			}
		}
	}
	return out, nil
}

// maxEventPages bounds the pages of one reason's events read (500 each).
const maxEventPages = 20

// PodState is what waiting for a collector pod reads of it.
type PodState struct {
	Phase    string // Pending, Running, Succeeded, Failed
	Reason   string // the pod's or its container's waiting/terminated reason
	Message  string
	Node     string
	Deleting bool // deleted, waiting for its kubelet to confirm (Terminating)
}

// CreatePod creates a pod from its JSON manifest.
func (a *API) CreatePod(ctx context.Context, namespace string, manifest []byte) error {
	return a.do(ctx, http.MethodPost, "/api/v1/namespaces/"+url.PathEscape(namespace)+"/pods", "create", "pods", manifest, nil)
}

// Pod reads a pod's phase and why it is not running.
func (a *API) Pod(ctx context.Context, namespace, name string) (PodState, error) {
	var p podObject
	err := a.do(ctx, http.MethodGet, "/api/v1/namespaces/"+url.PathEscape(namespace)+"/pods/"+url.PathEscape(name), "get", "pods", nil, &p)
	if err != nil {
		return PodState{}, err
	}
	return p.state(), nil
}

// open sends one GET whose answer is a stream (a watch) and returns its
// body; a refusal comes back as an APIError.
func (a *API) open(ctx context.Context, path, verb, resource string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, interrupted(ctx, verb+" "+resource, nil)
		}
		return nil, &UnreachableError{What: verb + " " + resource, Err: err}
	}
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, &APIError{Code: resp.StatusCode, Verb: verb, Resource: resource, Message: statusMessage(data, resp.Status)}
	}
	return resp.Body, nil
}

// DeletePod deletes a pod, its container given a second to end; a pod
// already gone is not an error. The pod goes when its kubelet confirms:
// PodWatch tells when.
func (a *API) DeletePod(ctx context.Context, namespace, name string) error {
	return a.deletePod(ctx, namespace, name, 1)
}

// ForceDeletePod removes a pod without its kubelet's confirmation (grace
// period 0, as kubectl delete --force): for a pod left Terminating on a
// node whose kubelet does not answer. Its container may still run there.
func (a *API) ForceDeletePod(ctx context.Context, namespace, name string) error {
	return a.deletePod(ctx, namespace, name, 0)
}

func (a *API) deletePod(ctx context.Context, namespace, name string, grace int) error {
	body := []byte(fmt.Sprintf(`{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":%d,"propagationPolicy":"Background"}`, grace))
	err := a.do(ctx, http.MethodDelete, "/api/v1/namespaces/"+url.PathEscape(namespace)+"/pods/"+url.PathEscape(name), "delete", "pods", body, nil)
	if IsNotFound(err) {
		return nil
	}
	return err
}

// PodNames lists the pods of a namespace that carry a label selector.
func (a *API) PodNames(ctx context.Context, namespace, selector string) ([]string, error) {
	var l struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	path := "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods?labelSelector=" + url.QueryEscape(selector)
	if err := a.do(ctx, http.MethodGet, path, "list", "pods", nil, &l); err != nil {
		return nil, err
	}
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Metadata.Name)
	}
	return out, nil
}

// Exec runs a command in a pod's container, its stdout and stderr to the
// writers, over WebSocket (v5.channel.k8s.io, what current API servers
// speak) and over SPDY where the WebSocket upgrade is refused, as kubectl
// does. A non-zero exit comes back as an error with its code (ExitCode).
func (a *API) Exec(ctx context.Context, namespace, pod, container string, command []string, stdout, stderr io.Writer) error {
	q := url.Values{}
	for _, c := range command {
		q.Add("command", c)
	}
	q.Set("container", container)
	q.Set("stdout", "true")
	q.Set("stderr", "true")
	u, err := url.Parse(a.base + "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods/" + url.PathEscape(pod) + "/exec?" + q.Encode())
	if err != nil {
		return err
	}
	ws, err := remotecommand.NewWebSocketExecutor(a.cfg, http.MethodGet, u.String())
	if err != nil {
		return fmt.Errorf("exec into %s: %w", pod, err)
	}
	spdy, err := remotecommand.NewSPDYExecutor(a.cfg, http.MethodPost, u)
	if err != nil {
		return fmt.Errorf("exec into %s: %w", pod, err)
	}
	exec, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return fmt.Errorf("exec into %s: %w", pod, err)
	}
	if err := exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: stdout, Stderr: stderr}); err != nil {
		if code, ok := ExitCode(err); ok {
			return &ExitError{Code: code, err: err}
		}
		// client-go gives the upgrade's refusal as text: RBAC's own words.
		if msg := err.Error(); strings.Contains(msg, "is forbidden: User ") {
			return &APIError{Code: http.StatusForbidden, Verb: "create", Resource: "pods/exec", Message: msg}
		} else if strings.Contains(msg, "unable to upgrade connection: Unauthorized") {
			return &APIError{Code: http.StatusUnauthorized, Verb: "create", Resource: "pods/exec", Message: msg}
		}
		return fmt.Errorf("exec into %s: %w", pod, err)
	}
	return nil
}

// ExitError is a command that ran and exited non-zero.
type ExitError struct {
	Code int
	err  error
}

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }
func (e *ExitError) Unwrap() error { return e.err }

// ExitCode reads the exit status client-go reports for a command that ran.
// A kubelet that reports it only in the text of an error ("error executing
// command in container: ...: exit status 3", as kwok's does) is read too.
func ExitCode(err error) (int, bool) {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, true
	}
	var ce interface{ ExitStatus() int }
	if errors.As(err, &ce) {
		return ce.ExitStatus(), true
	}
	if err != nil && strings.Contains(err.Error(), "error executing command in container") {
		if m := exitInText().FindStringSubmatch(err.Error()); m != nil {
			if code, cerr := strconv.Atoi(m[1]); cerr == nil {
				return code, true
			}
		}
	}
	return 0, false
}

// exitInText is how os/exec words an exit status, at the end of a message;
// compiled on first use, not by every diag command at start.
var exitInText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`exit status (\d{1,3})$`) })
