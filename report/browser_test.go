package report

import (
	"context"
	"fmt"
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

// The HTML reports of the seed case, broken and fixed, opened in headless
// Chromium at a desktop (1400 px) and a narrow (700 px) width: they load
// nothing from the network, log no console error, run their filters; the
// picture marks the broken ManagementIP 10.0.2.15 in red and nothing in the
// fixed case; no label leaves its box and the page needs no sideways
// scrolling. Screenshots go to the test's artifact directory
// (test-output/ under make test) for people to look at.
func TestHTMLReportInBrowser(t *testing.T) {
	browser := findBrowser(t)
	cases := []struct {
		name, bundle string
		broken       int // VTEPs drawn broken
		findings     int
		change       func(*Report)
	}{
		{"seed-broken", "seed-broken", 1, 1, nil},
		{"seed-fixed", "seed-fixed", 0, 1, nil}, // HOST-05 (egress) remains: not a VTEP problem
		// Names as AKS and EKS give them, and a dual-stack node's subnets.
		{"long-names", "seed-broken", 1, 1, func(r *Report) {
			for _, n := range r.picture().Nodes {
				n.Name = "aks-winpool-38715122-vmss00000a." + n.Name + ".internal.cloudapp.net"
				n.Subnets = append(n.Subnets, "fd00:10:244:1234:5678::/80")
			}
		}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		page := filepath.Join(dir, c.name+".html")
		r := buildReport(t, c.bundle)
		if c.change != nil {
			c.change(r)
		}
		if err := os.WriteFile(page, render(t, r, "html"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, width := range []int{1400, 700, 390} {
			t.Run(fmt.Sprintf("%s-%d", c.name, width), func(t *testing.T) {
				openReport(t, browser, page, width, c.broken, c.findings)
			})
		}
	}
}

// newBrowser starts a headless Chromium width pixels wide that may fetch
// nothing on its own (no background networking, updates or sync), with a
// profile and scratch space of the test's, ended with the test; its pages
// time out after a minute.
func newBrowser(t *testing.T, browser string, width int) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Headless,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		// Chromium makes scratch directories (org.chromium.Chromium.*) in
		// TMPDIR and leaves them when it is stopped: keep them in the test's.
		chromedp.Env("TMPDIR="+t.TempDir()),
		chromedp.WindowSize(width, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx
}

func openReport(t *testing.T, browser, page string, width, wantBroken, wantFindings int) {
	ctx := newBrowser(t, browser, width)

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
	// The window has a minimum width (about 500 px): a phone's is
	// emulated.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 900), chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS(`svg g.node`))); err != nil {
		t.Fatal(err)
	}
	brokenCount := mustRun(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg [data-broken="vtep"]').length`))
	crosses := mustRun(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll('svg text')].filter(e => e.textContent.includes('✗')).length`))
	// Every text of a node box ends inside the box (SVG user units: the
	// picture is scaled as a whole).
	overflows := mustRun(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('svg g.node')].flatMap(g => {
		const r = g.querySelector('rect').getBBox();
		return [...g.querySelectorAll('text')].filter(e => e.textContent.trim() !== '').map(e => [e, e.getBBox()])
			.filter(([e, b]) => b.x < r.x || b.x + b.width > r.x + r.width - 4 || b.y < r.y || b.y + b.height > r.y + r.height)
			.map(([e, b]) => e.textContent + ' (' + Math.round(b.x + b.width - r.x) + ' of ' + r.width + ')');
	})`))
	// The page fits the window: nothing but a table's own scroller scrolls sideways.
	pageWidth := mustRun(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	windowWidth := mustRun(t, ctx, chromedp.Evaluate[int](`window.innerWidth`))
	// The picture's text as drawn: its 12 px scaled by the drawing.
	textPx := mustRun(t, ctx, chromedp.Evaluate[float64](`(() => { const s = document.querySelector('.picture svg'); return 12 * s.getBoundingClientRect().width / s.viewBox.baseVal.width; })()`))
	filtersHidden := mustRun(t, ctx, chromedp.Evaluate[bool](`document.getElementById("filters").hidden`))
	shown := mustRun(t, ctx, chromedp.Text(chromedp.ID("shown")))
	emptyFileCells := mustRun(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll('table.evidence')].filter(tb => tb.rows[0].cells[0].textContent === 'File' && [...tb.rows].slice(1).every(r => r.cells[0].textContent.trim() === '')).length`))
	var brokenText, brokenFill string
	if brokenCount > 0 {
		brokenText = mustRun(t, ctx, chromedp.TextContent(chromedp.CSS(`svg [data-broken="vtep"]`)))
		// Drawn red: the style applies, not only the class.
		brokenFill = mustRun(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('svg [data-broken="vtep"] text')).fill`))
	}
	screenshot(t, ctx, strings.TrimSuffix(filepath.Base(page), ".html")+fmt.Sprintf("-%dpx.png", width))

	mu.Lock()
	defer mu.Unlock()
	if len(requests) > 0 {
		t.Errorf("the report made network requests: %v", requests)
	}
	if len(problems) > 0 {
		t.Errorf("console errors: %v", problems)
	}
	if brokenCount != wantBroken || crosses != wantBroken {
		t.Errorf("%d VTEP(s) drawn broken, %d ✗ in the picture; want %d", brokenCount, crosses, wantBroken)
	}
	if wantBroken > 0 && (!strings.Contains(brokenText, "10.0.2.15") || brokenFill != "rgb(198, 40, 40)") {
		t.Errorf("broken part of the picture: text %q, fill %s; want the ManagementIP 10.0.2.15 in red", brokenText, brokenFill)
	}
	if len(overflows) > 0 {
		t.Errorf("labels leave their boxes: %q", overflows)
	}
	if pageWidth > windowWidth {
		t.Errorf("the page is %d px wide in a %d px window: it scrolls sideways", pageWidth, windowWidth)
	}
	if textPx < 9 {
		t.Errorf("the picture's text is drawn %.1f px high at %d px: illegible", textPx, width)
	}
	if emptyFileCells > 0 {
		t.Errorf("%d evidence table(s) with an empty File column", emptyFileCells)
	}
	if filtersHidden || !strings.Contains(shown, fmt.Sprintf("%d of %d shown", wantFindings, wantFindings)) {
		t.Errorf("filters did not start: hidden=%v shown=%q", filtersHidden, shown)
	}
}

// screenshot writes the whole page, as drawn, to name in the test's
// artifact directory (make test: test-output/).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot := mustRun(t, ctx, chromedp.FullScreenshot(100))
	out := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
}

func mustRun[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The diff report of the seed's fix, in headless Chromium at 1400 and 700
// px: self-contained, no console error, nothing wider than the window;
// screenshots in the artifact directory.
func TestDiffHTMLInBrowser(t *testing.T) {
	browser := findBrowser(t)
	page := filepath.Join(t.TempDir(), "diff-seed-fix.html")
	html := renderDiff(t, buildDiff(t, "../testdata/bundles/seed-broken", "../testdata/bundles/seed-fixed"), "html")
	if err := os.WriteFile(page, html, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{1400, 700, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx := newBrowser(t, browser, width)
			var mu sync.Mutex
			var problems []string
			err := chromedp.Listen(ctx, func(ev any) {
				mu.Lock()
				defer mu.Unlock()
				switch e := ev.(type) {
				case *network.EventRequestWillBeSent:
					if u := e.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
						problems = append(problems, "request "+u)
					}
				case *runtime.EventExceptionThrown:
					problems = append(problems, "exception: "+e.ExceptionDetails.Text)
				case *runtime.EventConsoleAPICalled:
					if e.Type == runtime.ConsoleAPICalledTypeError {
						problems = append(problems, "console.error")
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 900), chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS(`body`))); err != nil {
				t.Fatal(err)
			}
			text := mustRun(t, ctx, chromedp.Evaluate[string](`document.body.innerText`))
			pageWidth := mustRun(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			windowWidth := mustRun(t, ctx, chromedp.Evaluate[int](`window.innerWidth`))
			screenshot(t, ctx, fmt.Sprintf("diff-seed-fix-%dpx.png", width))
			mu.Lock()
			defer mu.Unlock()
			if len(problems) > 0 {
				t.Errorf("problems: %v", problems)
			}
			for _, want := range []string{"recreated", "OVL-01", "HOST-05", "10.0.2.15"} {
				if !strings.Contains(text, want) {
					t.Errorf("the page does not show %q", want)
				}
			}
			if pageWidth > windowWidth {
				t.Errorf("the page is %d px wide in a %d px window", pageWidth, windowWidth)
			}
		})
	}
}
