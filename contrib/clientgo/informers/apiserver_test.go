package informers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// listServer is a tiny API server for every resource: a list returns one
// object named "obj-1" (in the request's namespace, if any) at resource
// version 5, without kind, which typed clients fill in; a watch stays open
// without events until the client goes; a streaming list is refused, so
// that client-go's reflector falls back to list and watch. It records the
// path and label selector of every list, per user agent.
type listServer struct {
	srv *httptest.Server

	mu    sync.Mutex
	lists map[string]map[string]string // user agent -> path -> labelSelector
}

// newListServer starts a listServer; the test closes it.
func newListServer(t *testing.T) *listServer {
	s := &listServer{lists: map[string]map[string]string{}}
	s.srv = httptest.NewServer(s)
	t.Cleanup(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

// client returns a clientset that speaks JSON to the server as agent.
func (s *listServer) client(t *testing.T, agent string) kubernetes.Interface {
	cs, err := kubernetes.NewForConfig(&rest.Config{
		Host:          s.srv.URL,
		UserAgent:     agent,
		QPS:           1e6,
		Burst:         1e6,
		ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// listed returns the label selector agent listed path with, and whether
// it did.
func (s *listServer) listed(agent, path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sel, ok := s.lists[agent][path]
	return sel, ok
}

// ServeHTTP answers lists and watches.
func (s *listServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		if q.Get("sendInitialEvents") == "true" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"BadRequest","code":400,"message":"streaming lists are not served here"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	s.mu.Lock()
	if s.lists[r.UserAgent()] == nil {
		s.lists[r.UserAgent()] = map[string]string{}
	}
	s.lists[r.UserAgent()][r.URL.Path] = q.Get("labelSelector")
	s.mu.Unlock()
	ns := ""
	if parts := strings.Split(r.URL.Path, "/"); len(parts) > 2 {
		for i, p := range parts[:len(parts)-2] {
			if p == "namespaces" {
				ns = parts[i+1]
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"obj-1","namespace":%q,"resourceVersion":"5"}}]}`, ns)
}
