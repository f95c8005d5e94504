package gvrtest

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
)

// failAfter bounds how long Next waits before it fails the test; it only
// turns a hang into a failure and never decides a passing test.
const failAfter = time.Minute

// Events is a client-go handler that sends every call, as "add key
// initial=true|false", "update key" or "delete key", to a channel.
type Events struct {
	ch chan string
}

var _ cache.ResourceEventHandler = (*Events)(nil)

// NewEvents returns a handler that can hold n calls nobody has read.
func NewEvents(n int) *Events { return &Events{ch: make(chan string, n)} }

// OnAdd records an add.
func (e *Events) OnAdd(obj any, initial bool) {
	e.ch <- fmt.Sprintf("add %s initial=%t", key(obj), initial)
}

// OnUpdate records an update.
func (e *Events) OnUpdate(_, newObj any) { e.ch <- "update " + key(newObj) }

// OnDelete records a delete.
func (e *Events) OnDelete(obj any) { e.ch <- "delete " + key(obj) }

// Next returns the next n calls, in order.
func (e *Events) Next(t testing.TB, n int) []string {
	t.Helper()
	out := make([]string, 0, n)
	timeout := time.After(failAfter)
	for len(out) < n {
		select {
		case s := <-e.ch:
			out = append(out, s)
		case <-timeout:
			t.Fatalf("got %q, waited %v for %d calls", out, failAfter, n)
		}
	}
	return out
}

// key is obj's key, or the error's text.
func key(obj any) string {
	k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return err.Error()
	}
	return k
}
