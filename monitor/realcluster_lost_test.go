//go:build !windows

package monitor

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// tcpProxy forwards a loopback port to the API server until cut: then it
// closes its listener and every connection, as a node that lost its route
// to the control plane sees it (connection refused from then on).
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// The watches synced, then the API server became unreachable: the
// Kubernetes objects the rounds judge are from then on stale, and
// diag_monitor_source_up{kubernetes} and /readyz must say so (they take
// KubeWatch.Err) instead of reading as answering.
func TestRealAPIServerLostAfterSync(t *testing.T) {
	cp := startWithWindowsNode(t)
	server, err := url.Parse(cp.Server)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newTCPProxy(t, server.Host)
	cfg := rest.CopyConfig(cp.Admin)
	cfg.Host = "https://" + proxy.ln.Addr().String()
	cfg.TLSClientConfig.ServerName = "127.0.0.1"

	k := startSyncedWatch(t, cfg)

	proxy.cut()
	// More than a round at the default interval.
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if err := k.Err(); err != nil {
			t.Logf("after the cut: %v", err)
			return
		}
		time.Sleep(time.Second)
	}
	t.Errorf("the API server unreachable for 90 s after the watches synced: KubeWatch.Err() still nil (source_up{kubernetes} 1, /readyz ok, the rounds judge stale objects)")
}
