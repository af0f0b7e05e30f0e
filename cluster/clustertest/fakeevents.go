package clustertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
)

// EventCalls counts the Event writes the server answered, by verb
// ("create", "patch"), once ServeEvents is on.
type EventCalls struct {
	Create, Patch atomic.Int32
	// Refuse makes every Event write answer 403 with this message, as an
	// API server does for a service account without the RBAC to write
	// Events.
	Refuse atomic.Value // string
}

// ServeEvents makes the server take Events as an API server does (diag
// monitor writes them on the Node): POST /api/v1/namespaces/NS/events
// creates one, kept in Events (which the lists of events serve: GET
// /api/v1/events and /api/v1/namespaces/NS/events), and PATCH
// …/events/NAME merges a JSON merge patch into it. It replaces Srv with a
// server that has the events routes in front of the others: call it before
// the first request.
func (f *Server) ServeEvents() *EventCalls {
	calls := &EventCalls{}
	old := f.Srv
	f.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if len(p) >= 5 && p[0] == "api" && p[1] == "v1" && p[2] == "namespaces" && p[4] == "events" && !f.Gone.Load() {
			switch {
			case len(p) == 5 && r.Method == http.MethodPost:
				f.createEvent(w, r, p[3], calls)
				return
			case len(p) == 6 && r.Method == http.MethodPatch:
				f.patchEvent(w, r, p[3], p[5], calls)
				return
			case len(p) == 5 && r.Method == http.MethodGet:
				f.listEventsIn(w, r, p[3])
				return
			}
		}
		f.serve(w, r)
	}))
	old.Close()
	f.t.Cleanup(f.Srv.Close)
	return calls
}

func (f *Server) createEvent(w http.ResponseWriter, r *http.Request, ns string, calls *EventCalls) {
	if msg, _ := calls.Refuse.Load().(string); msg != "" {
		f.status(w, http.StatusForbidden, msg)
		return
	}
	var ev map[string]any
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&ev); err != nil {
		f.status(w, http.StatusBadRequest, "decode Event: "+err.Error())
		return
	}
	meta, _ := ev["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if name == "" {
		f.status(w, http.StatusUnprocessableEntity, "Event.metadata.name: Required value")
		return
	}
	if got, _ := meta["namespace"].(string); got != "" && got != ns {
		f.status(w, http.StatusBadRequest, fmt.Sprintf("the namespace of the object (%s) does not match the namespace on the request (%s)", got, ns))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.findEvent(ns, name) != nil {
		f.status(w, http.StatusConflict, `events "`+name+`" already exists`)
		return
	}
	f.version++
	meta["namespace"] = ns
	meta["resourceVersion"] = fmt.Sprint(f.version)
	meta["uid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", f.version)
	ev["metadata"] = meta
	f.Events = append(f.Events, ev)
	calls.Create.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(ev)
}

func (f *Server) patchEvent(w http.ResponseWriter, r *http.Request, ns, name string, calls *EventCalls) {
	if msg, _ := calls.Refuse.Load().(string); msg != "" {
		f.status(w, http.StatusForbidden, msg)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/merge-patch+json") {
		f.status(w, http.StatusUnsupportedMediaType, "the fake takes JSON merge patches only, not "+ct)
		return
	}
	var patch map[string]any
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&patch); err != nil {
		f.status(w, http.StatusBadRequest, "decode patch: "+err.Error())
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ev := f.findEvent(ns, name)
	if ev == nil {
		f.status(w, http.StatusNotFound, `events "`+name+`" not found`)
		return
	}
	for k, v := range patch {
		if k != "metadata" {
			ev[k] = v
		}
	}
	f.version++
	ev["metadata"].(map[string]any)["resourceVersion"] = fmt.Sprint(f.version)
	calls.Patch.Add(1)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ev)
}

// findEvent is the stored Event of that namespace and name; mu is held.
func (f *Server) findEvent(ns, name string) map[string]any {
	for _, ev := range f.Events {
		meta, _ := ev["metadata"].(map[string]any)
		if meta["namespace"] == ns && meta["name"] == name {
			return ev
		}
	}
	return nil
}

// EventsOf lists the stored Events about one object (involvedObject kind
// and name), in the order they were made; copies, safe to keep.
func (f *Server) EventsOf(kind, name string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	for _, ev := range f.Events {
		obj, _ := ev["involvedObject"].(map[string]any)
		if obj["kind"] == kind && obj["name"] == name {
			data, _ := json.Marshal(ev)
			var c map[string]any
			json.Unmarshal(data, &c)
			out = append(out, c)
		}
	}
	return out
}
