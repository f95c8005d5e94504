package informer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kfanout/fanout/internal/listprobe"
)

// ListScope is what an informer lists and watches, on top of what its
// ListerWatcher already selects: the namespaces and the edit of the
// options of every list and watch request. The zero value adds nothing.
type ListScope struct {
	// Namespaces limits the informer to these namespaces; empty means
	// every namespace the ListerWatcher serves. One namespace is selected
	// by the server (a metadata.namespace field selector, ANDed with the
	// tweak's); several are filtered on the client, so the informer still
	// receives every namespace's objects from the server. A namespace the
	// ListerWatcher does not serve selects nothing.
	Namespaces []string
	// Tweak, if not nil, edits the options of every list and watch after
	// the informer has set its own fields (resourceVersion, timeout,
	// paging), as the tweak function of client-go's informer factories
	// does: set LabelSelector or FieldSelector here. A ListerWatcher that
	// edits the options itself (client-go's NewFilteredListWatchFromClient
	// with a modifier) does so after Tweak, and its edits win.
	Tweak func(*metav1.ListOptions)
}

// ErrInvalidListScope is wrapped by the error SetListOptions returns for a
// scope that cannot be used: a selector that does not parse, a namespace
// that is not a valid name, or namespaces for a cluster-scoped resource.
var ErrInvalidListScope = errors.New("informer: invalid list scope")

// errInformerStopped is SetListOptions' error on a stopped informer.
var errInformerStopped = errors.New("informer: SetListOptions: the informer has stopped")

// SetListOptions replaces the informer's ListScope (its namespaces and the
// tweak of its list and watch options, initially
// SharedIndexInformerOptions.ListScope). Before Run it only sets what the
// first list uses. On a running informer it switches: the watch in
// progress ends, the informer lists with the new scope and watches from
// there, and the list is applied as a relist is:
//
//   - objects that no longer match are deleted, and handlers get
//     OnDelete with a DeletedFinalStateUnknown holding the last state;
//   - objects that match now and did not are added (OnAdd, not in the
//     initial list);
//   - objects that match both are updated, and handlers are called only
//     for those whose resourceVersion changed.
//
// Each handler sees one stream: every change reaches it in order, once,
// and per object key the adds, updates and deletes stay consistent across
// the switch (never two adds without a delete between them). With the
// in-order queue (the default) the store swaps the old selection for the
// new one in one step, so a reader sees one or the other, never a mix;
// with DeltaFIFO (InOrder false) objects change one by one, and an object
// that matches both selections is never missing. With DeltaFIFO an update
// whose resourceVersion did not change still reaches a handler due for a
// resync, as in any relist.
//
// HasSynced (of the informer and of every registration) stays true during
// a switch: the cache keeps serving the old selection until the new one
// replaces it. SyncStatus reports Switching until then. Several calls in a
// row are fine: the last scope wins, and only the selections actually
// applied are delivered.
//
// Before anything changes, the scope is checked: the selectors the tweak
// sets must parse, the namespaces must be valid names, and a list of one
// object with the new options must succeed, which catches a field label
// the server does not support and tells a cluster-scoped resource (whose
// objects have no namespace), for which namespaces are an error; when no
// object tells, several namespaces are checked by a list that selects the
// first on the server, which kube-apiserver refuses for nodes and
// namespaces. A cluster-scoped resource that accepts that selector and has
// no object (PersistentVolumes, custom resources) cannot be told: its
// namespaces are taken and select nothing. An error
// wraps ErrInvalidListScope or the server's error, and changes nothing.
// SetListOptions fails on a stopped informer. It does not wait for the
// switch.
func (s *sharedIndexInformer) SetListOptions(ctx context.Context, scope ListScope) error {
	sc, err := newListScope(scope)
	if err != nil {
		return err
	}
	if s.listerWatcher == nil {
		return errNilListerWatcher
	}
	if s.IsStopped() {
		return errInformerStopped
	}
	if err := sc.probe(ctx, ToListerWatcherWithContext(s.listerWatcher), s.indexer); err != nil {
		return err
	}
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.stopped {
		return errInformerStopped
	}
	s.switcher.set(sc, s.started, s.clock.Now())
	return nil
}

// listScope is a checked ListScope.
type listScope struct {
	// gen numbers the scopes an informer has had, from 1.
	gen        uint64
	namespaces map[string]struct{} // nil: every namespace
	single     string              // the one namespace, if exactly one
	tweak      func(*metav1.ListOptions)
}

// newListScope checks scope and returns it ready to use.
func newListScope(scope ListScope) (*listScope, error) {
	for _, ns := range scope.Namespaces {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return nil, fmt.Errorf("%w: namespace %q: %s", ErrInvalidListScope, ns, strings.Join(errs, "; "))
		}
	}
	sc := uncheckedListScope(scope)
	var probe metav1.ListOptions
	sc.apply(&probe)
	if _, err := labels.Parse(probe.LabelSelector); err != nil {
		return nil, fmt.Errorf("%w: label selector %q: %w", ErrInvalidListScope, probe.LabelSelector, err)
	}
	if _, err := fields.ParseSelector(probe.FieldSelector); err != nil {
		return nil, fmt.Errorf("%w: field selector %q: %w", ErrInvalidListScope, probe.FieldSelector, err)
	}
	return sc, nil
}

// uncheckedListScope returns scope ready to use, unchecked.
func uncheckedListScope(scope ListScope) *listScope {
	sc := &listScope{tweak: scope.Tweak}
	for _, ns := range scope.Namespaces {
		if sc.namespaces == nil {
			sc.namespaces = map[string]struct{}{}
		}
		sc.namespaces[ns] = struct{}{}
	}
	if len(sc.namespaces) == 1 {
		sc.single = scope.Namespaces[0]
	}
	return sc
}

// apply edits the options of one request: the tweak, then the namespace
// field selector.
func (sc *listScope) apply(options *metav1.ListOptions) {
	if sc.tweak != nil {
		sc.tweak(options)
	}
	if sc.single != "" {
		options.FieldSelector = joinSelectors(options.FieldSelector, "metadata.namespace="+sc.single)
	}
}

// filtersOnClient reports whether objects must be filtered by namespace on
// the client.
func (sc *listScope) filtersOnClient() bool { return len(sc.namespaces) > 1 }

// selects reports whether obj is in the scope's namespaces; it checks
// only what the server cannot.
func (sc *listScope) selects(obj any) bool {
	if !sc.filtersOnClient() {
		return true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return true // not an object: let the reflector report it
	}
	_, ok := sc.namespaces[m.GetNamespace()]
	return ok
}

// probe lists one object with the scope's options: the server refuses a
// selector it cannot serve, and an object without a namespace (there, or
// failing that in store) shows a cluster-scoped resource, for which
// namespaces are an error. When no object tells, and the namespaces
// (several) are filtered on the client, a second probe selects the first
// of them on the server, which refuses that for a cluster-scoped resource
// without a metadata.namespace field label (nodes, namespaces...).
func (sc *listScope) probe(ctx context.Context, lw ListerWatcherWithContext, store Store) error {
	options := metav1.ListOptions{Limit: 1}
	sc.apply(&options)
	list, err := lw.ListWithContext(listprobe.With(ctx), options)
	if err != nil {
		return fmt.Errorf("informer: SetListOptions: a list with the new options failed, nothing changed: %w", err)
	}
	if sc.namespaces == nil {
		return nil
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return fmt.Errorf("informer: SetListOptions: unable to understand the list: %w", err)
	}
	var key string
	if len(items) > 0 {
		key, err = MetaNamespaceKeyFunc(items[0])
	} else if keys := store.ListKeys(); len(keys) > 0 {
		key = keys[0]
	}
	if err == nil && key != "" && !strings.Contains(key, "/") {
		return fmt.Errorf("%w: namespaces %v given for a cluster-scoped resource", ErrInvalidListScope, slices.Sorted(maps.Keys(sc.namespaces)))
	}
	if key == "" && sc.filtersOnClient() {
		first := slices.Min(slices.Collect(maps.Keys(sc.namespaces)))
		options := metav1.ListOptions{Limit: 1}
		sc.apply(&options)
		options.FieldSelector = joinSelectors(options.FieldSelector, "metadata.namespace="+first)
		if _, err := lw.ListWithContext(listprobe.With(ctx), options); err != nil {
			return fmt.Errorf("%w: the server refuses to select namespace %q (a cluster-scoped resource?): %w", ErrInvalidListScope, first, err)
		}
	}
	return nil
}

// joinSelectors returns the field selector that requires both a and b.
func joinSelectors(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}
