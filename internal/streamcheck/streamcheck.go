// Package streamcheck is a test handler that checks the stream of calls
// an informer makes to it: it builds the view the calls describe (object
// key -> resourceVersion) and records every call that breaks a consistent
// stream, so that tests can compare the view with the server's state and
// require no breaks.
package streamcheck

import (
	"fmt"
	"maps"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kfanout/fanout/deltafifo"
)

// maxErrs bounds the breaks kept.
const maxErrs = 20

// Checker is the handler. A break is an add of a key it holds, an update
// or delete of a key it does not hold, an update whose old object is not
// the last one it was given, an update that does not change the
// resourceVersion (with ChangedOnly), and a resourceVersion older than one
// already seen for the key. Its methods are safe for concurrent use.
type Checker struct {
	name string
	// ChangedOnly makes an update without a new resourceVersion a break
	// (no resyncs expected).
	ChangedOnly bool

	mu   sync.Mutex
	view map[string]string
	last map[string]int
	errs []string
}

// New returns a Checker named name in its breaks.
func New(name string) *Checker {
	return &Checker{name: name, ChangedOnly: true, view: map[string]string{}, last: map[string]int{}}
}

// Name returns the checker's name.
func (c *Checker) Name() string { return c.name }

func (c *Checker) fail(format string, args ...any) {
	if len(c.errs) < maxErrs {
		c.errs = append(c.errs, c.name+": "+fmt.Sprintf(format, args...))
	}
}

func (c *Checker) seen(key, rv string) {
	n, _ := strconv.Atoi(rv)
	if n < c.last[key] {
		c.fail("%s at rv %d after rv %d", key, n, c.last[key])
	}
	c.last[key] = n
}

// OnAdd records an add.
func (c *Checker) OnAdd(obj any, _ bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, rv := KeyRV(obj)
	if _, ok := c.view[key]; ok {
		c.fail("add of %s, which it holds", key)
	}
	c.seen(key, rv)
	c.view[key] = rv
}

// OnUpdate records an update.
func (c *Checker) OnUpdate(oldObj, newObj any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, rv := KeyRV(newObj)
	_, oldRV := KeyRV(oldObj)
	switch held, ok := c.view[key]; {
	case !ok:
		c.fail("update of %s, which it does not hold", key)
	case held != oldRV:
		c.fail("update of %s from rv %s, but it holds rv %s", key, oldRV, held)
	case c.ChangedOnly && rv == oldRV:
		c.fail("update of %s without change (rv %s)", key, rv)
	}
	c.seen(key, rv)
	c.view[key] = rv
}

// OnDelete records a delete, or a tombstone.
func (c *Checker) OnDelete(obj any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, rv := KeyRV(obj)
	if _, ok := c.view[key]; !ok {
		c.fail("delete of %s, which it does not hold", key)
	}
	c.seen(key, rv)
	delete(c.view, key)
}

// State returns a copy of the view and the breaks so far.
func (c *Checker) State() (map[string]string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.view), append([]string(nil), c.errs...)
}

// KeyRV returns the namespace/name key and resourceVersion of obj (of a
// tombstone's object).
func KeyRV(obj any) (string, string) {
	if t, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%T>", obj), ""
	}
	if m.GetNamespace() == "" {
		return m.GetName(), m.GetResourceVersion()
	}
	return m.GetNamespace() + "/" + m.GetName(), m.GetResourceVersion()
}
