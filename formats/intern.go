package formats

import (
	"strings"

	"github.com/wincni/diag/snapshot"
)

// guids keeps one copy of each backend ID the load balancers of a load
// name: a load balancer names its backends by their endpoints' IDs
// (127,000 references to 20,000 endpoints in a 1,000-node cluster's
// bundle), and without it each reference would keep its own copy for the
// whole analysis. It lives for one load and one list (no lock: the
// endpoints, read side by side, keep their own IDs). The streaming reader
// of that list keeps its GUIDs here as it reads them (valueReader.ids),
// boxed as its tree holds them, so that an ID is looked up once.
type guids struct {
	m map[string]any
}

// guidLen is the length of a GUID without braces.
const guidLen = 36

func (g *guids) get(s string) string {
	if s == "" {
		return s
	}
	if v, ok := g.m[s]; ok {
		return v.(string)
	}
	if g.m == nil {
		g.m = map[string]any{}
	}
	g.m[s] = s
	return s
}

// keep is get of the string b spells, boxed.
func (g *guids) keep(b []byte) any {
	if v, ok := g.m[string(b)]; ok {
		return v
	}
	if g.m == nil {
		g.m = map[string]any{}
	}
	v := any(string(b))
	g.m[v.(string)] = v
	return v
}

// keepString is keep of a string already made.
func (g *guids) keepString(s string) any {
	if v, ok := g.m[s]; ok {
		return v
	}
	if g.m == nil {
		g.m = map[string]any{}
	}
	v := any(s)
	g.m[s] = v
	return v
}

// loadBalancers wraps a builder to share the backend IDs.
func (g *guids) loadBalancers(build func(obj, snapshot.Ref) *snapshot.LoadBalancer) func(obj, snapshot.Ref) *snapshot.LoadBalancer {
	return func(o obj, ref snapshot.Ref) *snapshot.LoadBalancer {
		lb := build(o, ref)
		for i, id := range lb.EndpointIDs {
			lb.EndpointIDs[i] = g.get(id)
		}
		return lb
	}
}

// strArena packs strings that live as long as the model into shared
// blocks: one allocation of a string's own size class each would leave
// them scattered among the decoding's short-lived values, and the heap's
// spans part empty once those are collected. A string made here keeps its
// whole block alive: only what the model keeps goes in. One builder uses
// it (no lock).
type strArena struct {
	b strings.Builder
}

const strArenaBlock = 16 << 10

// keep is a copy of s in the arena (s itself when empty or long).
func (a *strArena) keep(s string) string {
	if s == "" || len(s) > strArenaBlock/16 {
		return s
	}
	if a.b.Cap()-a.b.Len() < len(s) {
		a.b = strings.Builder{}
		a.b.Grow(strArenaBlock)
	}
	n := a.b.Len()
	a.b.WriteString(s)
	return a.b.String()[n:]
}
