package informer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// selServer is a fake API server for pods that honours label selectors
// and the metadata.namespace / metadata.name field selectors as the real
// one does: a watch sends an object entering its selector as Added and
// one leaving it as Deleted. It keeps its whole history, so a watch from
// any listed resourceVersion replays what followed.
type selServer struct {
	mu       sync.Mutex
	rv       int
	objs     map[string]*corev1.Pod
	history  []selChange
	watches  []*selWatch
	lists    int
	watchers int
	// watchList says whether SendInitialEvents is served.
	watchList bool
	// refuse, if set, fails every list and watch whose options it returns
	// an error for.
	refuse func(metav1.ListOptions) error
	// onList, if set, is called at the start of every list, without the
	// lock.
	onList func()
}

type selChange struct {
	rv        int
	typ       watch.EventType
	obj, prev *corev1.Pod
}

func newSelServer(watchList bool) *selServer {
	return &selServer{objs: map[string]*corev1.Pod{}, watchList: watchList}
}

func (s *selServer) IsWatchListSemanticsUnSupported() bool { return !s.watchList }

// put creates or updates a pod; nil labels delete it.
func (s *selServer) put(ns, name string, lbls map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := ns + "/" + name
	prev := s.objs[key]
	s.rv++
	if lbls == nil {
		if prev == nil {
			return
		}
		gone := prev.DeepCopy()
		gone.ResourceVersion = strconv.Itoa(s.rv)
		delete(s.objs, key)
		s.record(selChange{rv: s.rv, typ: watch.Deleted, obj: gone, prev: prev})
		return
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: maps.Clone(lbls), ResourceVersion: strconv.Itoa(s.rv)}}
	s.objs[key] = p
	typ := watch.Modified
	if prev == nil {
		typ = watch.Added
	}
	s.record(selChange{rv: s.rv, typ: typ, obj: p, prev: prev})
}

func (s *selServer) record(c selChange) {
	s.history = append(s.history, c)
	for _, w := range s.watches {
		if e, ok := w.sel.event(c); ok {
			w.send(e)
		}
	}
}

// setRefuse sets refuse.
func (s *selServer) setRefuse(f func(metav1.ListOptions) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = f
}

// selector is a request's selection.
type selector struct {
	labels labels.Selector
	fields fields.Selector
}

func (s *selServer) selectorOf(options metav1.ListOptions) (selector, error) {
	s.mu.Lock()
	refuse := s.refuse
	var err error
	if refuse != nil {
		err = refuse(options)
	}
	s.mu.Unlock()
	if err != nil {
		return selector{}, err
	}
	l, err := labels.Parse(options.LabelSelector)
	if err != nil {
		return selector{}, apierrors.NewBadRequest(err.Error())
	}
	f, err := fields.ParseSelector(options.FieldSelector)
	if err != nil {
		return selector{}, apierrors.NewBadRequest(err.Error())
	}
	for _, r := range f.Requirements() {
		if r.Field != "metadata.namespace" && r.Field != "metadata.name" {
			return selector{}, apierrors.NewBadRequest("field label not supported: " + r.Field)
		}
	}
	return selector{labels: l, fields: f}, nil
}

func (sel selector) matches(p *corev1.Pod) bool {
	return p != nil && sel.labels.Matches(labels.Set(p.Labels)) &&
		sel.fields.Matches(fields.Set{"metadata.namespace": p.Namespace, "metadata.name": p.Name})
}

// event is what a watch with sel sees of c.
func (sel selector) event(c selChange) (watch.Event, bool) {
	was, is := sel.matches(c.prev), sel.matches(c.obj)
	switch {
	case c.typ == watch.Deleted && was:
		return watch.Event{Type: watch.Deleted, Object: c.obj}, true
	case c.typ == watch.Deleted:
		return watch.Event{}, false
	case was && is:
		return watch.Event{Type: watch.Modified, Object: c.obj}, true
	case was:
		return watch.Event{Type: watch.Deleted, Object: c.obj}, true
	case is:
		return watch.Event{Type: watch.Added, Object: c.obj}, true
	}
	return watch.Event{}, false
}

// matching returns the current objects sel selects, by key.
func (s *selServer) matching(sel selector) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, p := range s.objs {
		if sel.matches(p) {
			out[k] = p.ResourceVersion
		}
	}
	return out
}

func (s *selServer) List(options metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), options)
}

func (s *selServer) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), options)
}

// ListWithContext lists the selected pods at the current resourceVersion,
// in one page.
func (s *selServer) ListWithContext(_ context.Context, options metav1.ListOptions) (runtime.Object, error) {
	if s.onList != nil {
		s.onList()
	}
	sel, err := s.selectorOf(options)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
	for _, k := range slices.Sorted(maps.Keys(s.objs)) {
		if p := s.objs[k]; sel.matches(p) {
			list.Items = append(list.Items, *p.DeepCopy())
		}
	}
	return list, nil
}

// WatchWithContext watches from options.ResourceVersion ("" or "0": the
// current objects first; with SendInitialEvents, then the end bookmark).
func (s *selServer) WatchWithContext(_ context.Context, options metav1.ListOptions) (watch.Interface, error) {
	sel, err := s.selectorOf(options)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchers++
	w := newSelWatch(sel)
	initial := options.SendInitialEvents != nil && *options.SendInitialEvents && s.watchList
	rv := 0
	if options.ResourceVersion != "" && options.ResourceVersion != "0" {
		if rv, err = strconv.Atoi(options.ResourceVersion); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	if initial || rv == 0 {
		for _, k := range slices.Sorted(maps.Keys(s.objs)) {
			if p := s.objs[k]; sel.matches(p) {
				w.send(watch.Event{Type: watch.Added, Object: p})
			}
		}
		if initial {
			w.send(watch.Event{Type: watch.Bookmark, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
				ResourceVersion: strconv.Itoa(s.rv),
				Annotations:     map[string]string{metav1.InitialEventsAnnotationKey: "true"},
			}}})
		}
	} else {
		for _, c := range s.history {
			if c.rv > rv {
				if e, ok := sel.event(c); ok {
					w.send(e)
				}
			}
		}
	}
	s.watches = append(s.watches, w)
	go w.pump()
	return w, nil
}

// openWatches counts the watches not stopped.
func (s *selServer) openWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.watches {
		select {
		case <-w.done:
		default:
			n++
		}
	}
	return n
}

// selWatch is an unbounded watch: send never blocks; pump hands the
// events over until Stop.
type selWatch struct {
	sel     selector
	out     chan watch.Event
	done    chan struct{}
	stopped sync.Once
	mu      sync.Mutex
	queue   []watch.Event
	more    chan struct{}
}

func newSelWatch(sel selector) *selWatch {
	return &selWatch{sel: sel, out: make(chan watch.Event), done: make(chan struct{}), more: make(chan struct{}, 1)}
}

func (w *selWatch) send(e watch.Event) {
	if p, ok := e.Object.(*corev1.Pod); ok {
		e.Object = p.DeepCopy()
	}
	w.mu.Lock()
	w.queue = append(w.queue, e)
	w.mu.Unlock()
	select {
	case w.more <- struct{}{}:
	default:
	}
}

func (w *selWatch) pump() {
	defer close(w.out)
	for {
		w.mu.Lock()
		var e watch.Event
		ok := len(w.queue) > 0
		if ok {
			e, w.queue = w.queue[0], w.queue[1:]
		}
		w.mu.Unlock()
		if !ok {
			select {
			case <-w.more:
				continue
			case <-w.done:
				return
			}
		}
		select {
		case w.out <- e:
		case <-w.done:
			return
		}
	}
}

func (w *selWatch) ResultChan() <-chan watch.Event { return w.out }
func (w *selWatch) Stop()                          { w.stopped.Do(func() { close(w.done) }) }

// String describes the server's objects, for failures.
func (s *selServer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("rv %d, %d objects", s.rv, len(s.objs))
}
