package monitor

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// An API server that refuses connections from the start: /readyz must
// name why (README: "/readyz is 503, with the reasons"), not only that a
// list has not come yet.
func TestKubeWatchUnreachableSaysWhy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	// (Linux: "connection refused"; Windows: "… actively refused it"; Wine:
	// "Connection refused.")
	k, err := NewKubeWatch(&rest.Config{Host: "http://" + addr}, "win-1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k.Start(ctx)
	var last error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if last = k.Err(); last != nil && strings.Contains(strings.ToLower(last.Error()), "refused") {
			return
		}
	}
	t.Errorf("20 s of connection refused: KubeWatch.Err() = %v, want the reason (connection refused)", last)
}
