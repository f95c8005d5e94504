package informer

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kfanout/fanout/internal/features"
)

// storeConstructors runs a test against both constructors.
var storeConstructors = []struct {
	name string
	new  func(opts ...StoreOption) Store
}{
	{"NewStore", func(opts ...StoreOption) Store { return NewStore(MetaNamespaceKeyFunc, opts...) }},
	{"NewIndexer", func(opts ...StoreOption) Store {
		return NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, opts...)
	}},
}

func TestStoreAddUpdateDeleteGet(t *testing.T) {
	for _, c := range storeConstructors {
		t.Run(c.name, func(t *testing.T) {
			s := c.new()
			require.NoError(t, s.Add(storePod("ns", "a", "1", nil)))
			require.NoError(t, s.Add(storePod("ns", "b", "2", nil)))
			require.NoError(t, s.Update(storePod("ns", "a", "3", nil)))
			require.NoError(t, s.Add(storePod("", "c", "4", nil)))

			assert.Equal(t, []string{"c", "ns/a", "ns/b"}, storeSorted(s.ListKeys()))
			assert.Equal(t, []string{"/c", "ns/a", "ns/b"}, podKeys(s.List()))

			item, exists, err := s.Get(storePod("ns", "a", "", nil))
			require.NoError(t, err)
			require.True(t, exists)
			assert.Equal(t, "3", item.(*corev1.Pod).ResourceVersion)

			item, exists, err = s.GetByKey("c")
			require.NoError(t, err)
			require.True(t, exists)
			assert.Equal(t, "4", item.(*corev1.Pod).ResourceVersion)

			require.NoError(t, s.Delete(storePod("ns", "a", "5", nil)))
			_, exists, err = s.GetByKey("ns/a")
			require.NoError(t, err)
			assert.False(t, exists)
			assert.Equal(t, "5", s.LastStoreSyncResourceVersion())

			// Deleting a missing object is not an error.
			require.NoError(t, s.Delete(storePod("ns", "missing", "6", nil)))
			assert.Equal(t, []string{"c", "ns/b"}, storeSorted(s.ListKeys()))
			assert.NoError(t, s.Resync())
		})
	}
}

func TestStoreKeyError(t *testing.T) {
	keyErr := errors.New("no key")
	s := NewIndexer(func(obj any) (string, error) {
		if obj == "bad" {
			return "", keyErr
		}
		return fmt.Sprint(obj), nil
	}, nil)
	ops := map[string]func() error{
		"Add":     func() error { return s.Add("bad") },
		"Update":  func() error { return s.Update("bad") },
		"Delete":  func() error { return s.Delete("bad") },
		"Get":     func() error { _, _, err := s.Get("bad"); return err },
		"Replace": func() error { return s.Replace([]any{"ok", "bad"}, "9") },
	}
	require.NoError(t, s.Add("kept"))
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			err := op()
			var ke KeyError
			require.ErrorAs(t, err, &ke)
			assert.Equal(t, "bad", ke.Obj)
			assert.ErrorIs(t, err, keyErr)
			assert.Equal(t, []string{"kept"}, s.ListKeys())
		})
	}
}

func TestStoreObjectWithoutMeta(t *testing.T) {
	s := NewStore(MetaNamespaceKeyFunc)
	err := s.Add("just a string")
	var ke KeyError
	require.ErrorAs(t, err, &ke)
	assert.Contains(t, err.Error(), "object has no meta")
	assert.Empty(t, s.List())
}

func TestStoreTransformer(t *testing.T) {
	var calls []string
	transformErr := errors.New("boom")
	transform := func(obj any) (any, error) {
		p := obj.(*corev1.Pod)
		calls = append(calls, p.Name)
		if p.Name == "bad" {
			return nil, transformErr
		}
		out := p.DeepCopy()
		out.Labels = map[string]string{"transformed": "yes"}
		return out, nil
	}
	for _, c := range storeConstructors {
		t.Run(c.name, func(t *testing.T) {
			calls = nil
			s := c.new(WithTransformer(transform))
			require.NoError(t, s.Add(storePod("ns", "a", "1", nil)))
			require.NoError(t, s.Update(storePod("ns", "a", "2", nil)))
			require.NoError(t, s.Replace([]any{storePod("ns", "b", "3", nil)}, "3"))
			err := s.Add(storePod("ns", "bad", "4", nil))
			require.ErrorIs(t, err, transformErr)
			assert.Contains(t, err.Error(), "transforming: boom")
			// Delete does not transform.
			require.NoError(t, s.Delete(storePod("ns", "b", "5", nil)))

			assert.Equal(t, []string{"a", "a", "b", "bad"}, calls)
			require.NoError(t, s.Add(storePod("ns", "c", "6", nil)))
			item, _, _ := s.GetByKey("ns/c")
			assert.Equal(t, "yes", item.(*corev1.Pod).Labels["transformed"])
		})
	}
}

func TestStoreReplace(t *testing.T) {
	s := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	require.NoError(t, s.Add(storePod("old", "a", "1", nil)))
	require.NoError(t, s.Replace([]any{storePod("x", "b", "5", nil), storePod("y", "c", "6", nil)}, "10"))

	assert.Equal(t, []string{"x/b", "y/c"}, storeSorted(s.ListKeys()))
	assert.Equal(t, "10", s.LastStoreSyncResourceVersion())
	assert.Equal(t, []string{"x", "y"}, storeSorted(s.ListIndexFuncValues(NamespaceIndex)))
	old, err := s.ByIndex(NamespaceIndex, "old")
	require.NoError(t, err)
	assert.Empty(t, old)

	require.NoError(t, s.Replace(nil, ""))
	assert.Empty(t, s.ListKeys())
	assert.Empty(t, s.ListIndexFuncValues(NamespaceIndex))
	assert.Equal(t, "", s.LastStoreSyncResourceVersion())
}

func TestStoreResourceVersion(t *testing.T) {
	s := NewStore(MetaNamespaceKeyFunc)
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"initial", func() {}, ""},
		{"add", func() { _ = s.Add(storePod("ns", "a", "10", nil)) }, "10"},
		{"update older", func() { _ = s.Update(storePod("ns", "b", "7", nil)) }, "7"},
		{"delete newer", func() { _ = s.Delete(storePod("ns", "a", "30", nil)) }, "30"},
		{"bookmark", func() { s.Bookmark("40") }, "40"},
		{"replace", func() { _ = s.Replace([]any{storePod("ns", "c", "1", nil)}, "50") }, "50"},
		{"add without rv", func() { _ = s.Add(storePod("ns", "d", "", nil)) }, ""},
	}
	for _, step := range steps {
		step.do()
		assert.Equal(t, step.want, s.LastStoreSyncResourceVersion(), step.name)
	}

	restore := features.SetForTesting(features.AtomicFIFO, false)
	defer restore()
	s.Bookmark("60")
	assert.Equal(t, "", s.LastStoreSyncResourceVersion(), "gate off")
}

// storeGaugeRecorder records the values a store sets.
type storeGaugeRecorder struct {
	mu     sync.Mutex
	values []float64
}

func (g *storeGaugeRecorder) Set(v float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.values = append(g.values, v)
}

// storeMetricsProvider hands out one storeGaugeRecorder.
type storeMetricsProvider struct{ rv *storeGaugeRecorder }

func (p storeMetricsProvider) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric {
	return &storeGaugeRecorder{}
}
func (p storeMetricsProvider) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return nil
}
func (p storeMetricsProvider) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return p.rv
}

func TestStoreMetrics(t *testing.T) {
	name, err := NewInformerName("store-metrics-test")
	require.NoError(t, err)
	defer name.Release()
	id := name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})

	g := &storeGaugeRecorder{}
	s := NewStore(MetaNamespaceKeyFunc, WithStoreMetrics(id, storeMetricsProvider{rv: g}))
	_ = s.Add(storePod("ns", "a", "10", nil))
	_ = s.Add(storePod("ns", "b", "not-a-number", nil))
	_ = s.Delete(storePod("ns", "a", "12", nil))
	s.Bookmark("1234567890123456789")
	_ = s.Replace(nil, "")
	assert.Equal(t, []float64{10, 12, 567890123456789, 0}, g.values)

	// An identifier that is not reserved reports nothing.
	g2 := &storeGaugeRecorder{}
	s2 := NewStore(MetaNamespaceKeyFunc, WithStoreMetrics(InformerNameAndResource{}, storeMetricsProvider{rv: g2}))
	_ = s2.Add(storePod("ns", "a", "10", nil))
	assert.Empty(t, g2.values)
}

func TestStoreWithoutKeyFunc(t *testing.T) {
	s := NewStore(nil)
	err := s.Add(storePod("ns", "a", "1", nil))
	var ke KeyError
	require.ErrorAs(t, err, &ke)
	assert.Contains(t, err.Error(), "no key function")
}

func TestFakeCustomStore(t *testing.T) {
	var zero FakeCustomStore
	require.NoError(t, zero.Add(1))
	require.NoError(t, zero.Update(1))
	require.NoError(t, zero.Delete(1))
	require.NoError(t, zero.Replace(nil, ""))
	require.NoError(t, zero.Resync())
	zero.Bookmark("1")
	assert.Nil(t, zero.List())
	assert.Nil(t, zero.ListKeys())
	assert.Equal(t, "", zero.LastStoreSyncResourceVersion())
	item, exists, err := zero.Get(1)
	assert.Equal(t, []any{nil, false, nil}, []any{item, exists, err})
	item, exists, err = zero.GetByKey("k")
	assert.Equal(t, []any{nil, false, nil}, []any{item, exists, err})

	var calls []string
	rec := func(s string) { calls = append(calls, s) }
	errX := errors.New("x")
	f := &FakeCustomStore{
		AddFunc:                          func(any) error { rec("add"); return errX },
		UpdateFunc:                       func(any) error { rec("update"); return errX },
		DeleteFunc:                       func(any) error { rec("delete"); return errX },
		ListFunc:                         func() []any { rec("list"); return []any{1} },
		ListKeysFunc:                     func() []string { rec("listkeys"); return []string{"k"} },
		GetFunc:                          func(any) (any, bool, error) { rec("get"); return 1, true, nil },
		GetByKeyFunc:                     func(string) (any, bool, error) { rec("getbykey"); return 2, true, nil },
		ReplaceFunc:                      func([]any, string) error { rec("replace"); return errX },
		ResyncFunc:                       func() error { rec("resync"); return errX },
		BookmarkFunc:                     func(rv string) { rec("bookmark " + rv) },
		LastStoreSyncResourceVersionFunc: func() string { rec("rv"); return "7" },
	}
	var s Store = f
	assert.Equal(t, errX, s.Add(1))
	assert.Equal(t, errX, s.Update(1))
	assert.Equal(t, errX, s.Delete(1))
	assert.Equal(t, []any{1}, s.List())
	assert.Equal(t, []string{"k"}, s.ListKeys())
	item, _, _ = s.Get(1)
	assert.Equal(t, 1, item)
	item, _, _ = s.GetByKey("k")
	assert.Equal(t, 2, item)
	assert.Equal(t, errX, s.Replace(nil, ""))
	assert.Equal(t, errX, s.Resync())
	s.Bookmark("3")
	assert.Equal(t, "7", s.LastStoreSyncResourceVersion())
	assert.Equal(t, []string{"add", "update", "delete", "list", "listkeys", "get", "getbykey", "replace", "resync", "bookmark 3", "rv"}, calls)
}
