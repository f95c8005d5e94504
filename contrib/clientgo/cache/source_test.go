package cache_test

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// relistSource is a ConfigMap source whose lists follow a script (the last
// answer repeats) and whose watches the test drives, so that a delete can
// be shown only by a relist.
type relistSource struct {
	mu      sync.Mutex // guards the fields below
	lists   []*corev1.ConfigMapList
	watches []*watch.FakeWatcher
}

// IsWatchListSemanticsUnSupported makes the reflector list, then watch.
func (s *relistSource) IsWatchListSemanticsUnSupported() bool { return true }

// List returns the next scripted list.
func (s *relistSource) List(metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lists[0]
	if len(s.lists) > 1 {
		s.lists = s.lists[1:]
	}
	return l.DeepCopy(), nil
}

// Watch opens a watch the test drives.
func (s *relistSource) Watch(metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := watch.NewFakeWithChanSize(10, false)
	s.watches = append(s.watches, w)
	return w, nil
}

// expireWatch ends the open watch with 410 Gone; the next list (scripted
// by the caller) may lack an object, which only that relist shows gone.
func (s *relistSource) expireWatch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches[len(s.watches)-1].Error(&apierrors.NewResourceExpired("too old").ErrStatus)
}

// configMap returns ns/name at rv.
func configMap(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// configMapList returns a list at rv.
func configMapList(rv string, items ...*corev1.ConfigMap) *corev1.ConfigMapList {
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, cm := range items {
		l.Items = append(l.Items, *cm)
	}
	return l
}
