package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kfanout/fanout/debugpage"
	"github.com/kfanout/fanout/examples/overload/demo"
)

// chromiumNames are the commands tried for a headless browser; .ci/run
// installs Debian's chromium when none is found.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome"}

// TestDebugPageInBrowser runs the overload demo's scenario with the debug
// page mounted, loads the page twice in headless Chromium while the
// stalled handler waits, and checks the rendered DOM: the stalled handler
// is marked behind and the fast one is not, the sparkline is drawn, and
// the second load shows newer figures than the first. The second load is
// also written as a screenshot, debugpage.png, to the test's artifact
// directory (go test -artifacts keeps it; FANOUT_DEBUGPAGE_PNG=path copies
// it there as well). It skips only when no Chromium is installed.
func TestDebugPageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo and a browser for several seconds")
	}
	browser := findChromium()
	if browser == "" {
		t.Skipf("no headless browser: none of %v is on PATH (install Debian's chromium: apt-get install chromium; .ci/run does)", chromiumNames)
	}

	page := debugpage.New(debugpage.Options{
		Title:          "fanout overload demo",
		SampleInterval: 200 * time.Millisecond,
		BehindAfter:    time.Second,
		Refresh:        time.Second,
	})
	url, shutdown, err := demo.ServeDebugPage("127.0.0.1:0", page)
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown()

	cfg := tinyConfig()
	cfg.Duration = 20 * time.Second // an upper bound: the test cancels the run once it has seen the page
	cfg.Objects = 200
	cfg.Rate = 1000
	cfg.Debug = page
	cfg.Runs = []string{demo.RunDefaults} // the page shows fanout's informers only
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() {
		_, runErr = demo.Run(ctx, cfg, newDemoSource, discard{}, filepath.Join(t.TempDir(), "chart.png"))
	})
	defer func() {
		cancel()
		wg.Wait()
		if runErr != nil && !errors.Is(runErr, context.Canceled) {
			t.Errorf("demo: %v", runErr)
		}
	}()

	// Wait until the page's own JSON says the stalled handler is behind.
	first := waitForJSON(t, url, func(s debugpage.Snapshot) bool {
		h := findHandler(s, "stalled")
		return h != nil && h.Behind && len(h.Backlog) >= 3
	})
	dir := t.TempDir()
	dom1 := dumpDOM(t, browser, url, dir)
	checkDOM(t, "first load", dom1)

	// Wait for newer figures, then load again and take the screenshot.
	waitForJSON(t, url, func(s debugpage.Snapshot) bool {
		h := findHandler(s, "stalled")
		return h != nil && len(h.Backlog) >= len(findHandler(first, "stalled").Backlog)+3
	})
	dom2 := dumpDOM(t, browser, url, dir)
	checkDOM(t, "second load", dom2)
	if pageTime(dom1) == pageTime(dom2) || pageTime(dom1) == "" {
		t.Errorf("the page did not update: both loads show the time %q", pageTime(dom1))
	}
	if polyline(dom1, "stalled") == polyline(dom2, "stalled") {
		t.Errorf("the stalled handler's sparkline did not change between loads: %q", polyline(dom1, "stalled"))
	}
	png := filepath.Join(dir, "debugpage.png")
	screenshot(t, browser, url, dir, png)
	t.Logf("screenshot: %s", png)
	if out := os.Getenv("FANOUT_DEBUGPAGE_PNG"); out != "" {
		b, err := os.ReadFile(png)
		if err == nil {
			err = os.WriteFile(out, b, 0o644)
		}
		if err != nil {
			t.Errorf("copying the screenshot: %v", err)
		}
	}
}

// findChromium returns the path of the first browser found, or "".
func findChromium() string {
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// discard is an io.Writer that drops the demo's table.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// waitForJSON polls the page's JSON until cond holds, for at most 30 s.
func waitForJSON(t *testing.T, url string, cond func(debugpage.Snapshot) bool) debugpage.Snapshot {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var s debugpage.Snapshot
	for {
		resp, err := http.Get(url + "?format=json")
		if err != nil {
			t.Fatal(err)
		}
		s = debugpage.Snapshot{}
		err = json.NewDecoder(resp.Body).Decode(&s)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never reached the expected state; last snapshot: %+v", s)
		}
		<-tick.C
	}
}

// findHandler returns the handler called name of the first informer.
func findHandler(s debugpage.Snapshot, name string) *debugpage.HandlerView {
	for _, inf := range s.Informers {
		for i := range inf.Handlers {
			if inf.Handlers[i].Name == name {
				return &inf.Handlers[i]
			}
		}
	}
	return nil
}

// chromium runs the headless browser with args and then url, in a fresh
// profile under dir, and returns its standard output.
func chromium(t *testing.T, browser, url, dir string, args ...string) []byte {
	t.Helper()
	profile, err := os.MkdirTemp(dir, "profile-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--user-data-dir=" + profile,
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, append(append(base, args...), url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
	}
	return out
}

// dumpDOM returns the page's DOM as the browser rendered it.
func dumpDOM(t *testing.T, browser, url, dir string) string {
	t.Helper()
	return string(chromium(t, browser, url, dir, "--dump-dom"))
}

// screenshot writes a PNG of the page to path.
func screenshot(t *testing.T, browser, url, dir, path string) {
	t.Helper()
	chromium(t, browser, url, dir, "--screenshot="+path, "--window-size=1360,400")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 8 || string(b[1:4]) != "PNG" {
		t.Fatalf("%s is not a PNG (%d bytes)", path, len(b))
	}
}

var (
	timeRe = regexp.MustCompile(`<span id="time">([^<]*)</span>`)
	rowRe  = regexp.MustCompile(`(?s)<tr class="handler[^"]*" data-handler="([^"]*)" data-behind="(true|false)">(.*?)</tr>`)
	polyRe = regexp.MustCompile(`<polyline points="([^"]*)"`)
)

// pageTime is the time the page says its figures were read at.
func pageTime(dom string) string {
	if m := timeRe.FindStringSubmatch(dom); m != nil {
		return m[1]
	}
	return ""
}

// handlerRows maps each handler's name to whether its row is marked
// behind and to the row's HTML.
func handlerRows(dom string) (behind map[string]bool, rows map[string]string) {
	behind, rows = map[string]bool{}, map[string]string{}
	for _, m := range rowRe.FindAllStringSubmatch(dom, -1) {
		behind[m[1]] = m[2] == "true"
		rows[m[1]] = m[3]
	}
	return behind, rows
}

// polyline returns the points of the named handler's sparkline.
func polyline(dom, handler string) string {
	_, rows := handlerRows(dom)
	if m := polyRe.FindStringSubmatch(rows[handler]); m != nil {
		return m[1]
	}
	return ""
}

// checkDOM checks one rendered load of the page.
func checkDOM(t *testing.T, what, dom string) {
	t.Helper()
	behind, _ := handlerRows(dom)
	if len(behind) != demo.NumHandlers {
		t.Fatalf("%s: found the rows of %v, want %v\n%s", what, behind, demo.HandlerNames, dom)
	}
	if !behind["stalled"] {
		t.Errorf("%s: the stalled handler is not shown as behind", what)
	}
	if behind["fast"] {
		t.Errorf("%s: the fast handler is shown as behind", what)
	}
	if !strings.Contains(dom, `stalled <span class="status-behind">behind</span>`) {
		t.Errorf("%s: no behind label next to the stalled handler", what)
	}
	if pts := strings.Fields(polyline(dom, "stalled")); len(pts) < 3 {
		t.Errorf("%s: the stalled handler's sparkline has %d points, want at least 3", what, len(pts))
	}
}
