package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// findBrowser finds a Chromium. make test runs this test where one is
// installed; CI installs Debian's chromium and sets DIAG_REQUIRE_BROWSER so
// that a missing browser fails instead of skipping.
func findBrowser(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("DIAG_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium found and DIAG_REQUIRE_BROWSER is set")
	}
	t.Skip("no chromium on PATH")
	return ""
}

// The HTML report of the seed case, opened in headless Chromium: it loads
// nothing from the network, logs no console error, runs its filters, and its
// picture marks the ManagementIP 10.0.2.15 as the broken part.
func TestHTMLReportInBrowser(t *testing.T) {
	browser := findBrowser(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "seed-broken.html")
	if err := os.WriteFile(page, render(t, buildReport(t, "seed-broken"), "html"), 0o600); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Headless,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1200, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()

	var mu sync.Mutex
	var requests, problems []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
				requests = append(requests, u)
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, "console."+string(e.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS(`svg [data-broken="vtep"]`))); err != nil {
		t.Fatal(err)
	}
	brokenCount := mustRun(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg [data-broken="vtep"]').length`))
	brokenText := mustRun(t, ctx, chromedp.TextContent(chromedp.CSS(`svg [data-broken="vtep"]`)))
	// The element is drawn red: the style applies, not only the class.
	brokenFill := mustRun(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('svg [data-broken="vtep"] text')).fill`))
	filtersHidden := mustRun(t, ctx, chromedp.Evaluate[bool](`document.getElementById("filters").hidden`))
	shown := mustRun(t, ctx, chromedp.Text(chromedp.ID("shown")))
	shot := mustRun(t, ctx, chromedp.FullScreenshot(100))
	out := filepath.Join(t.ArtifactDir(), "seed-broken-report.png")
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)

	mu.Lock()
	defer mu.Unlock()
	if len(requests) > 0 {
		t.Errorf("the report made network requests: %v", requests)
	}
	if len(problems) > 0 {
		t.Errorf("console errors: %v", problems)
	}
	if brokenCount != 1 || !strings.Contains(brokenText, "10.0.2.15") || brokenFill != "rgb(198, 40, 40)" {
		t.Errorf("broken part of the picture: %d element(s), text %q, fill %s; want the ManagementIP 10.0.2.15 in red", brokenCount, brokenText, brokenFill)
	}
	if filtersHidden || !strings.Contains(shown, "1 of 1 shown") {
		t.Errorf("filters did not start: hidden=%v shown=%q", filtersHidden, shown)
	}
}

func mustRun[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
