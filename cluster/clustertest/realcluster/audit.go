package realcluster

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
)

// AuditEvent is one request the API server logged.
type AuditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"responseStatus"`
	RequestURI string `json:"requestURI"`
}

// Resource is resource[/subresource].
func (e AuditEvent) Resource() string {
	if e.ObjectRef.Subresource != "" {
		return e.ObjectRef.Resource + "/" + e.ObjectRef.Subresource
	}
	return e.ObjectRef.Resource
}

// Audit reads the audit log's events of the requests whose user agent
// starts with agent ("" for all).
func (cp *ControlPlane) Audit(agent string) []AuditEvent {
	f, err := os.Open(cp.AuditLog)
	if err != nil {
		cp.t.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e AuditEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if strings.HasPrefix(e.UserAgent, agent) {
			out = append(out, e)
		}
	}
	return out
}
