// Package donemirror makes client-go DoneCheckers (client-go v0.36+)
// whose completion fanout decides, without naming cache.DoneChecker,
// which client-go v0.35 does not declare.
package donemirror

import (
	"reflect"

	"k8s.io/client-go/tools/cache"
)

// Host has the method set of the linked release's
// cache.ResourceEventHandlerRegistration: HasSynced and, from client-go
// v0.36 on, HasSyncedChecker() cache.DoneChecker. Embedding one gives a
// type HasSyncedChecker on the releases that have it.
type Host = cache.ResourceEventHandlerRegistration

// Supported reports whether the linked client-go has HasSyncedChecker.
var Supported = func() bool {
	_, ok := reflect.TypeFor[Host]().MethodByName("HasSyncedChecker")
	return ok
}()

// New returns a Host whose checker is named name and done once finish is
// called (finish may be called more than once). It is a client-go
// DeltaFIFO used only as a DoneChecker: the one client-go DoneChecker whose
// name can be set and whose completion can be triggered from outside
// (Replace with an empty list ends its initial population). On client-go
// v0.35 host is nil and finish does nothing.
func New(name string) (host Host, finish func()) {
	if !Supported {
		return nil, func() {}
	}
	var opts cache.DeltaFIFOOptions
	// Name is an option from client-go v0.36 on, set by name so that
	// this file compiles against v0.35.
	if f := reflect.ValueOf(&opts).Elem().FieldByName("Name"); f.IsValid() && f.Kind() == reflect.String {
		f.SetString(name)
	}
	fifo := cache.NewDeltaFIFOWithOptions(opts)
	return fifo, func() { _ = fifo.Replace(nil, "") }
}
