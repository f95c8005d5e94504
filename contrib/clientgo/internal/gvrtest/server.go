// Package gvrtest is test support for fanout's dynamic and metadata
// informer factories: a minimal API server for one resource and a
// recorder of the list and watch calls a fake client receives.
package gvrtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Server serves one resource path: a GET without watch=true answers list,
// and a watch writes events, one JSON watch event each, then stays open
// until the client goes away. It refuses a streamed list (a watch with
// sendInitialEvents=true) with 422 Invalid, as an API server without the
// WatchList feature does, so that clients fall back to list and watch.
// Any other path is 404.
type Server struct {
	server    *httptest.Server
	transport *http.Transport

	mu       sync.Mutex // guards requests
	requests []string
}

// NewServer starts a server for path, closed when the test cleans up
// (after the cleanups registered later, such as Start's). list and events
// are encoded as JSON; an event is a value such as
// map[string]any{"type": "ADDED", "object": obj}.
func NewServer(t testing.TB, path string, list any, events ...any) *Server {
	s := &Server{transport: &http.Transport{}}
	s.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		verb := "list"
		if q.Get("watch") == "true" {
			verb = "watch"
			if q.Get("sendInitialEvents") == "true" {
				verb = "watch-list"
			}
		}
		s.mu.Lock()
		s.requests = append(s.requests, fmt.Sprintf("%s %s labelSelector=%q", verb, r.URL.Path, q.Get("labelSelector")))
		s.mu.Unlock()

		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		if verb == "watch-list" {
			w.WriteHeader(http.StatusUnprocessableEntity)
			if err := enc.Encode(watchListForbidden); err != nil {
				t.Errorf("encode status: %v", err)
			}
			return
		}
		if verb == "list" {
			if err := enc.Encode(list); err != nil {
				t.Errorf("encode list: %v", err)
			}
			return
		}
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			if err := enc.Encode(e); err != nil {
				t.Errorf("encode event: %v", err)
			}
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(s.Close)
	return s
}

// watchListForbidden is the Status an API server without the WatchList
// feature answers a streamed list with.
var watchListForbidden = map[string]any{
	"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": http.StatusUnprocessableEntity,
	"reason":  "Invalid",
	"message": "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
}

// URL is the server's base URL.
func (s *Server) URL() string { return s.server.URL }

// HTTPClient is a client with its own transport, whose idle connections
// Close closes.
func (s *Server) HTTPClient() *http.Client { return &http.Client{Transport: s.transport} }

// Requests returns the requests served so far, as "list|watch path
// labelSelector=...".
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Close stops the server, which waits for open watches to end: the
// informers must have stopped. It then closes the client's idle
// connections.
func (s *Server) Close() {
	s.server.Close()
	s.transport.CloseIdleConnections()
}

// CheckServed runs f's informer of gvr against s, which serves path with
// a list holding ns-a/listed and a watch adding ns-a/watched, and checks
// that f (made for namespace ns-a with the label selector app=x) tries a
// streamed list, falls back on s's refusal, lists and watches path with
// that selector, delivers both adds and caches both objects.
func (s *Server) CheckServed(t testing.TB, f Factory, gvr schema.GroupVersionResource, path string) {
	t.Helper()
	events := NewEvents(10)
	gi := Informer(t, f, gvr, events)
	Start(t, f, gvr)
	check := func(what string, want, got []string) {
		t.Helper()
		if !slices.Equal(want, got) {
			t.Fatalf("%s: got %q, want %q", what, got, want)
		}
	}
	check("handler calls", []string{"add ns-a/listed initial=true", "add ns-a/watched initial=false"}, events.Next(t, 2))
	check("requests", []string{
		"watch-list " + path + ` labelSelector="app=x"`,
		"list " + path + ` labelSelector="app=x"`,
		"watch " + path + ` labelSelector="app=x"`,
	}, s.Requests())
	keys := Keys(t, gi.Lister(), "ns-a")
	slices.Sort(keys)
	check("lister", []string{"ns-a/listed", "ns-a/watched"}, keys)
}
