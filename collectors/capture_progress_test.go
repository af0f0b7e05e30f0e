package collectors

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// A capture says what to do while it runs and how long is left.
func TestCaptureCountdown(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	out := &Output{id: "capture", logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, f)
	}}
	old := countdownStep
	countdownStep = time.Millisecond
	defer func() { countdownStep = old }()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() { captureCountdown(time.Hour, done, out); close(finished) }()
	for {
		mu.Lock()
		n := len(lines)
		mu.Unlock()
		if n >= 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(done)
	<-finished
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(lines[0], "left") {
		t.Errorf("%q", lines)
	}
}
