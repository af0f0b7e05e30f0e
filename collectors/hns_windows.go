//go:build windows

package collectors

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// rawHNS queries HNS through the same DLL entry points as hcsshim but keeps
// the JSON HNS returns: hcn.List* unmarshal into structs and drop fields
// the rules need (DrMacAddress, LayeredOn, State, Resources). Only query
// entry points are bound here; a test reads this file and holds it to that.
type rawHNS struct{}

var (
	computenetwork = windows.NewLazySystemDLL("computenetwork.dll")
	vmcompute      = windows.NewLazySystemDLL("vmcompute.dll")
	procHNSCall    = vmcompute.NewProc("HNSCall")
)

// hcnProcs are one object kind's enumerate, open, query and close calls.
type hcnProcs struct{ enumerate, open, query, close *windows.LazyProc }

var hcnKinds = map[HNSKind]hcnProcs{
	HNSNetworks: {computenetwork.NewProc("HcnEnumerateNetworks"), computenetwork.NewProc("HcnOpenNetwork"),
		computenetwork.NewProc("HcnQueryNetworkProperties"), computenetwork.NewProc("HcnCloseNetwork")},
	HNSEndpoints: {computenetwork.NewProc("HcnEnumerateEndpoints"), computenetwork.NewProc("HcnOpenEndpoint"),
		computenetwork.NewProc("HcnQueryEndpointProperties"), computenetwork.NewProc("HcnCloseEndpoint")},
	HNSLoadBalancers: {computenetwork.NewProc("HcnEnumerateLoadBalancers"), computenetwork.NewProc("HcnOpenLoadBalancer"),
		computenetwork.NewProc("HcnQueryLoadBalancerProperties"), computenetwork.NewProc("HcnCloseLoadBalancer")},
	HNSNamespaces: {computenetwork.NewProc("HcnEnumerateNamespaces"), computenetwork.NewProc("HcnOpenNamespace"),
		computenetwork.NewProc("HcnQueryNamespaceProperties"), computenetwork.NewProc("HcnCloseNamespace")},
	HNSRoutes: {computenetwork.NewProc("HcnEnumerateSdnRoutes"), computenetwork.NewProc("HcnOpenSdnRoute"),
		computenetwork.NewProc("HcnQuerySdnRouteProperties"), computenetwork.NewProc("HcnCloseSdnRoute")},
}

// NewHNSSource returns the node's HNS, read-only.
func NewHNSSource() (HNSSource, error) {
	if err := computenetwork.Load(); err != nil {
		return nil, fmt.Errorf("computenetwork.dll: %w (HNS needs Windows Server 2019 or later)", err)
	}
	return rawHNS{}, nil
}

// hresult turns a call's return value into an error, with HNS's own
// message from the result string when there is one.
func hresult(r uintptr, result *uint16) error {
	msg := takeString(result)
	if int32(r) >= 0 {
		return nil
	}
	if r&0x1fff0000 == 0x00070000 {
		r &= 0xffff
	}
	if msg != "" {
		var m struct{ Error string }
		if json.Unmarshal([]byte(msg), &m) == nil && m.Error != "" {
			msg = m.Error
		}
		return fmt.Errorf("%w: %s", windows.Errno(r), msg)
	}
	return windows.Errno(r)
}

// takeString copies and frees a string HNS allocated.
func takeString(p *uint16) string {
	if p == nil {
		return ""
	}
	s := windows.UTF16PtrToString(p)
	windows.CoTaskMemFree(unsafe.Pointer(p))
	return s
}

func (rawHNS) ListV2(ctx context.Context, kind HNSKind, detailed bool) ([]byte, error) {
	procs, ok := hcnKinds[kind]
	if !ok {
		return nil, fmt.Errorf("unknown HNS kind %q", kind)
	}
	// LazyProc.Call panics on an entry point this build lacks (older
	// builds have no SDN routes): find them first.
	for _, p := range []*windows.LazyProc{procs.enumerate, procs.open, procs.query, procs.close} {
		if err := p.Find(); err != nil {
			return nil, fmt.Errorf("HNS %s: %w", kind, err)
		}
	}
	flags := 0
	if detailed {
		flags = 1
	}
	query, err := windows.UTF16PtrFromString(fmt.Sprintf(`{"SchemaVersion":{"Major":2,"Minor":0},"Flags":%d}`, flags))
	if err != nil {
		return nil, err
	}
	var list, result *uint16
	r, _, _ := procs.enumerate.Call(uintptr(unsafe.Pointer(query)), uintptr(unsafe.Pointer(&list)), uintptr(unsafe.Pointer(&result)))
	if err := hresult(r, result); err != nil {
		return nil, fmt.Errorf("enumerate %s: %w", kind, err)
	}
	var ids []string
	if err := json.Unmarshal([]byte(takeString(list)), &ids); err != nil {
		return nil, fmt.Errorf("enumerate %s: %w", kind, err)
	}
	objects := make([]string, 0, len(ids))
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		obj, err := queryOne(procs, id, query)
		if err != nil {
			// Objects come and go (pods start and stop) between enumerate
			// and open: a vanished one is not an error.
			continue
		}
		objects = append(objects, obj)
	}
	return []byte("[" + strings.Join(objects, ",\n") + "]"), nil
}

func queryOne(p hcnProcs, id string, query *uint16) (string, error) {
	guid, err := windows.GUIDFromString("{" + strings.Trim(id, "{}") + "}")
	if err != nil {
		return "", err
	}
	var handle uintptr
	var result *uint16
	r, _, _ := p.open.Call(uintptr(unsafe.Pointer(&guid)), uintptr(unsafe.Pointer(&handle)), uintptr(unsafe.Pointer(&result)))
	if err := hresult(r, result); err != nil {
		return "", err
	}
	defer p.close.Call(handle)
	var props *uint16
	result = nil
	r, _, _ = p.query.Call(handle, uintptr(unsafe.Pointer(query)), uintptr(unsafe.Pointer(&props)), uintptr(unsafe.Pointer(&result)))
	if err := hresult(r, result); err != nil {
		return "", err
	}
	return takeString(props), nil
}

// GetV1 is HNSCall("GET", path, ""). The response is an envelope
// {"Success":..,"Error":..,"Output":..}; the Output is returned.
func (rawHNS) GetV1(ctx context.Context, path string) ([]byte, error) {
	if err := procHNSCall.Find(); err != nil {
		return nil, fmt.Errorf("vmcompute.dll HNSCall: %w", err)
	}
	method, _ := windows.UTF16PtrFromString("GET")
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	body, _ := windows.UTF16PtrFromString("")
	var response *uint16
	r, _, _ := procHNSCall.Call(uintptr(unsafe.Pointer(method)), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(body)), uintptr(unsafe.Pointer(&response)))
	text := takeString(response)
	if int32(r) < 0 {
		return nil, fmt.Errorf("HNSCall GET %s: %w", path, windows.Errno(r&0xffff))
	}
	var env struct {
		Success bool
		Error   string
		Output  json.RawMessage
	}
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		return nil, fmt.Errorf("HNSCall GET %s: %w", path, err)
	}
	if !env.Success {
		return nil, fmt.Errorf("HNSCall GET %s: %s", path, env.Error)
	}
	if len(env.Output) == 0 || string(env.Output) == "null" {
		return []byte("[]"), nil
	}
	return env.Output, nil
}
