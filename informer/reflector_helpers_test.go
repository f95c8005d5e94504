package informer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// recordingStore is a ReflectorStore that records every call as a line
// such as "add a@3" or "replace [a@1 b@2] rv=2".
type recordingStore struct {
	mu        sync.Mutex
	ops       []string
	resyncErr error
}

func describeObj(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return m.GetName() + "@" + m.GetResourceVersion()
}

func (s *recordingStore) record(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op)
}

func (s *recordingStore) Add(obj any) error { s.record("add " + describeObj(obj)); return nil }
func (s *recordingStore) Update(obj any) error {
	s.record("update " + describeObj(obj))
	return nil
}
func (s *recordingStore) Delete(obj any) error {
	s.record("delete " + describeObj(obj))
	return nil
}
func (s *recordingStore) Replace(items []any, rv string) error {
	var names []string
	for _, it := range items {
		names = append(names, describeObj(it))
	}
	s.record(fmt.Sprintf("replace [%s] rv=%s", strings.Join(names, " "), rv))
	return nil
}
func (s *recordingStore) Resync() error {
	s.record("resync")
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resyncErr
}

func (s *recordingStore) setResyncErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resyncErr = err
}

// takeOps returns the recorded calls and forgets them.
func (s *recordingStore) takeOps() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ops := s.ops
	s.ops = nil
	return ops
}

// bookmarkStore also records bookmarks and resource version updates.
type bookmarkStore struct{ recordingStore }

func (s *bookmarkStore) Bookmark(rv string) error { s.record("bookmark " + rv); return nil }

func testPodNamed(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

// runReflector starts r.RunWithContext in the synctest bubble, waits until
// it is idle and returns a function that stops it and checks that it
// returned.
func runReflector(t *testing.T, r *Reflector) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	synctest.Wait()
	return func() {
		t.Helper()
		cancel()
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("RunWithContext did not return after cancel")
		}
	}
}
