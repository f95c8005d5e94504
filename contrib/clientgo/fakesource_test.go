package clientgo

import (
	"fmt"
	"sort"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// fakeSource is a tiny in-memory API source of ConfigMaps for one
// informer: List returns every object at the current resource version,
// Watch opens a fresh watcher that receives the changes made after it.
// Changes can also be made silently (while no watch is open), so that the
// next relist finds objects missing, new or changed.
type fakeSource struct {
	mu      sync.Mutex
	rv      int
	objs    map[string]*corev1.ConfigMap
	w       *watch.FakeWatcher
	lists   int
	watches int
	listErr error
	// expiredBelow is the resource version of the last silent change: a
	// watch from an older version fails with 410 Gone, as from an API
	// server whose watch cache no longer has the events, and the
	// reflector has to relist.
	expiredBelow int
}

func newFakeSource() *fakeSource {
	return &fakeSource{objs: map[string]*corev1.ConfigMap{}}
}

// IsWatchListSemanticsUnSupported makes client-go's and fanout's
// reflectors list and then watch instead of trying a streaming list.
func (s *fakeSource) IsWatchListSemanticsUnSupported() bool { return true }

// List returns every object, sorted by key.
func (s *fakeSource) List(metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.listErr != nil {
		return nil, s.listErr
	}
	keys := make([]string, 0, len(s.objs))
	for k := range s.objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
	for _, k := range keys {
		l.Items = append(l.Items, *s.objs[k].DeepCopy())
	}
	return l, nil
}

// Watch opens a watcher for later changes; it fails with 410 Gone when
// changes were made silently after options.ResourceVersion.
func (s *fakeSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches++
	// A reflector that only saw Added events since a list at "0" still
	// watches from "0"; as a test source, this one treats that as old too
	// rather than replaying synthetic adds.
	rv, err := strconv.Atoi(options.ResourceVersion)
	if options.ResourceVersion == "" {
		rv, err = 0, nil
	}
	if err == nil && rv < s.expiredBelow {
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, s.expiredBelow))
	}
	s.w = watch.NewFakeWithChanSize(1000, false)
	return s.w, nil
}

// counts returns how often List and Watch were called.
func (s *fakeSource) counts() (lists, watches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists, s.watches
}

// put creates or replaces ns/name with data at a new resource version and
// tells the open watch unless silent.
func (s *fakeSource) put(ns, name, data string, silent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	key := ns + "/" + name
	obj := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: strconv.Itoa(s.rv)},
		Data:       map[string]string{"v": data},
	}
	_, existed := s.objs[key]
	s.objs[key] = obj
	if silent || s.w == nil {
		s.expiredBelow = s.rv
		return
	}
	if existed {
		s.w.Modify(obj.DeepCopy())
	} else {
		s.w.Add(obj.DeepCopy())
	}
}

// remove deletes ns/name and tells the open watch unless silent.
func (s *fakeSource) remove(ns, name string, silent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := ns + "/" + name
	obj, ok := s.objs[key]
	if !ok {
		return
	}
	s.rv++
	delete(s.objs, key)
	obj = obj.DeepCopy()
	obj.ResourceVersion = strconv.Itoa(s.rv)
	if silent || s.w == nil {
		s.expiredBelow = s.rv
		return
	}
	s.w.Delete(obj)
}

// expire ends the open watch with a 410 Gone error event.
func (s *fakeSource) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return
	}
	status := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", s.rv)).Status()
	s.w.Error(&status)
	s.w = nil
}

// setListError makes List fail with err (nil to succeed again).
func (s *fakeSource) setListError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listErr = err
}

// configMaps is the resource listers use in tests.
var configMaps = schema.GroupResource{Resource: "configmaps"}
