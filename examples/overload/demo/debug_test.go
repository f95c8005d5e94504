package demo

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeDebugPage checks that the page is served at DebugPath on the
// address picked for ":0" and that shutdown stops the server.
func TestServeDebugPage(t *testing.T) {
	url, shutdown, err := ServeDebugPage("127.0.0.1:0", NewDebugPage())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, DebugPath) {
		t.Errorf("url = %q, want http://127.0.0.1:PORT%s", url, DebugPath)
	}
	resp, err := http.Get(url)
	if err != nil {
		shutdown()
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	shutdown()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<title>fanout overload demo</title>") {
		t.Errorf("GET %s: %d\n%s", url, resp.StatusCode, body)
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("GET after shutdown succeeded")
	}
}
