// Package fakelw is a fake ListerWatcher for tests: an in-memory resource
// that bumps its resourceVersion on every change, serves paginated lists
// with continue tokens, replays history to watches started at an older
// resourceVersion, and can be told to fail, expire, close watches or send
// bookmarks. It records every call.
//
// A Source satisfies informer.ListerWatcher and
// informer.ListerWatcherWithContext (and client-go's). It opts out of
// watch-list streaming by default (IsWatchListSemanticsUnSupported returns
// true); SetWatchListSupported(true) makes it serve watch-list requests.
package fakelw

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Verbs recorded in Call.Verb.
const (
	VerbList  = "list"
	VerbWatch = "watch"
)

// Call is one recorded request.
type Call struct {
	// Verb is VerbList or VerbWatch.
	Verb string
	// Options are the request's options as received.
	Options metav1.ListOptions
}

// String renders the fields tests usually compare, e.g.
// `list rv="0" limit=500` or `watch rv="7" bookmarks`.
func (c Call) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rv=%q", c.Verb, c.Options.ResourceVersion)
	if c.Options.Limit != 0 {
		fmt.Fprintf(&b, " limit=%d", c.Options.Limit)
	}
	if c.Options.Continue != "" {
		fmt.Fprintf(&b, " continue=%q", c.Options.Continue)
	}
	if c.Options.ResourceVersionMatch != "" {
		fmt.Fprintf(&b, " match=%s", c.Options.ResourceVersionMatch)
	}
	if c.Options.SendInitialEvents != nil && *c.Options.SendInitialEvents {
		b.WriteString(" initial-events")
	}
	if c.Options.AllowWatchBookmarks {
		b.WriteString(" bookmarks")
	}
	return b.String()
}

type change struct {
	rv    int
	event watch.Event
}

type listSnapshot struct {
	rv    int
	items []runtime.Object
}

// Source is the fake resource. Its methods are safe for concurrent use.
// Objects passed in are copied; objects handed out are copies, except that
// every open watch receives the same copy of an event's object.
type Source struct {
	objType reflect.Type // the example's type, for bookmark objects
	newList func() runtime.Object

	mu                 sync.Mutex
	items              map[string]runtime.Object
	rv                 int
	history            []change // every change after compactedRV
	compactedRV        int
	watches            []*fakeWatch
	calls              []Call
	listErrs           []error
	watchErrs          []error
	snapshots          map[int]listSnapshot
	nextSnapshot       int
	continueExpired    bool
	watchListSupported bool
}

// New returns an empty Source whose objects have example's type (a
// pointer to a struct, such as &corev1.Pod{}). Lists are *corev1.List, or
// *unstructured.UnstructuredList for an Unstructured example; SetListType
// changes that. The resourceVersion starts at 0.
func New(example runtime.Object) *Source {
	s := &Source{
		objType:   reflect.TypeOf(example),
		newList:   func() runtime.Object { return &corev1.List{} },
		items:     map[string]runtime.Object{},
		snapshots: map[int]listSnapshot{},
	}
	if _, ok := example.(*unstructured.Unstructured); ok {
		s.newList = func() runtime.Object { return &unstructured.UnstructuredList{} }
	}
	return s
}

// SetListType makes List return objects made by newList (for example
// func() runtime.Object { return &corev1.PodList{} }).
func (s *Source) SetListType(newList func() runtime.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.newList = newList
}

// SetWatchListSupported makes the Source claim (true) or disclaim (false,
// the default) support for watch-list streaming. When supported, a watch
// with SendInitialEvents=true gets an Added event per object and then the
// bookmark annotated k8s.io/initial-events-end.
func (s *Source) SetWatchListSupported(supported bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchListSupported = supported
}

// IsWatchListSemanticsUnSupported is the method the reflector looks for to
// decide whether to try watch-list. It returns true unless
// SetWatchListSupported(true) was called.
func (s *Source) IsWatchListSemanticsUnSupported() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.watchListSupported
}

// ResourceVersion returns the current resourceVersion.
func (s *Source) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.Itoa(s.rv)
}

// Add stores a copy of obj at a new resourceVersion and sends it to open
// watches as Added. It returns the stored copy.
func (s *Source) Add(obj runtime.Object) runtime.Object {
	return s.change(watch.Added, obj)
}

// Modify is Add for an update: the event is Modified.
func (s *Source) Modify(obj runtime.Object) runtime.Object {
	return s.change(watch.Modified, obj)
}

// Delete removes the object with obj's namespace and name at a new
// resourceVersion and sends obj (a copy, at that version) as Deleted.
func (s *Source) Delete(obj runtime.Object) runtime.Object {
	return s.change(watch.Deleted, obj)
}

func (s *Source) change(t watch.EventType, obj runtime.Object) runtime.Object {
	obj = obj.DeepCopyObject()
	accessor, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("fakelw: %T has no object metadata: %v", obj, err)) // a test bug
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	accessor.SetResourceVersion(strconv.Itoa(s.rv))
	key := keyOf(accessor)
	if t == watch.Deleted {
		delete(s.items, key)
	} else {
		s.items[key] = obj
	}
	ev := watch.Event{Type: t, Object: obj}
	s.history = append(s.history, change{rv: s.rv, event: ev})
	s.broadcastLocked(ev, false)
	return obj.DeepCopyObject()
}

func keyOf(m metav1.Object) string {
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
}

func (s *Source) broadcastLocked(ev watch.Event, bookmarksOnly bool) {
	open := s.watches[:0]
	for _, w := range s.watches {
		if !w.isOpen() {
			continue
		}
		open = append(open, w)
		if !bookmarksOnly || w.options.bookmarks {
			w.push(ev)
		}
	}
	clear(s.watches[len(open):])
	s.watches = open
}

// FailList makes the next len(errs) List calls return errs, in order.
func (s *Source) FailList(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listErrs = append(s.listErrs, errs...)
}

// FailWatch makes the next len(errs) Watch calls return errs, in order.
func (s *Source) FailWatch(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchErrs = append(s.watchErrs, errs...)
}

// ExpireContinueTokens makes every later request with a continue token
// fail with 410 Expired, as when the server compacted the list's
// snapshot.
func (s *Source) ExpireContinueTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.continueExpired = true
	clear(s.snapshots)
}

// Compact forgets the change history, so that a watch from any older
// resourceVersion fails with 410 Expired.
func (s *Source) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = nil
	s.compactedRV = s.rv
}

// SendBookmark sends a bookmark at the current resourceVersion to every
// open watch that allowed bookmarks.
func (s *Source) SendBookmark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.broadcastLocked(watch.Event{Type: watch.Bookmark, Object: s.bookmarkLocked(false)}, true)
}

// bookmarkLocked makes an empty object of the example's type at the
// current resourceVersion.
func (s *Source) bookmarkLocked(initialEventsEnd bool) runtime.Object {
	obj := reflect.New(s.objType.Elem()).Interface().(runtime.Object)
	accessor, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("fakelw: %v has no object metadata: %v", s.objType, err))
	}
	accessor.SetResourceVersion(strconv.Itoa(s.rv))
	if initialEventsEnd {
		accessor.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return obj
}

// SendWatchError sends err as a watch Error event to every open watch. An
// API error keeps its status (so apierrors.NewResourceExpired makes the
// reflector relist); any other error becomes a 500.
func (s *Source) SendWatchError(err error) {
	status := apierrors.NewInternalError(err).Status()
	if api, ok := err.(apierrors.APIStatus); ok {
		status = api.Status()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.broadcastLocked(watch.Event{Type: watch.Error, Object: &status}, false)
}

// CloseWatches ends every open watch from the server side, after the
// events already sent to it are read.
func (s *Source) CloseWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.watches {
		w.close()
	}
	s.watches = nil
}

// OpenWatches returns how many watches are open: neither stopped by the
// client nor closed by CloseWatches.
func (s *Source) OpenWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.watches {
		if w.isOpen() {
			n++
		}
	}
	return n
}

// Calls returns the recorded calls, oldest first.
func (s *Source) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// CallStrings returns Calls rendered by Call.String.
func (s *Source) CallStrings() []string {
	var out []string
	for _, c := range s.Calls() {
		out = append(out, c.String())
	}
	return out
}

// ResetCalls forgets the recorded calls.
func (s *Source) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// List implements informer.Lister.
func (s *Source) List(options metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), options)
}

// Watch implements informer.Watcher.
func (s *Source) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), options)
}

func popErr(errs *[]error) error {
	if len(*errs) == 0 {
		return nil
	}
	err := (*errs)[0]
	*errs = (*errs)[1:]
	return err
}

func tooLargeRV(rv int) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d", rv), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

// parseRV returns the numeric RV, or -1 for "" and "0" (any/newest).
func parseRV(rv string) (int, error) {
	if rv == "" || rv == "0" {
		return -1, nil
	}
	n, err := strconv.Atoi(rv)
	if err != nil || n < 0 {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", rv))
	}
	return n, nil
}
