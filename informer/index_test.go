package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// indexState is the observable content of one index.
type indexState map[string][]string

// indexStateOf returns, for every value of the index, its sorted keys.
func indexStateOf(t *testing.T, idx Indexer, name string) indexState {
	t.Helper()
	out := indexState{}
	for _, v := range idx.ListIndexFuncValues(name) {
		keys, err := idx.IndexKeys(name, v)
		require.NoError(t, err)
		out[v] = keys
	}
	return out
}

func newTierIndexer() Indexer {
	return NewIndexer(MetaNamespaceKeyFunc, Indexers{"tier": labelIndexFunc, NamespaceIndex: MetaNamespaceIndexFunc})
}

func TestIndexMaintenance(t *testing.T) {
	idx := newTierIndexer()
	tier := func(v string) map[string]string { return map[string]string{"tier": v} }

	steps := []struct {
		name string
		do   func() error
		want indexState
	}{
		{"add multi-valued", func() error { return idx.Add(storePod("ns", "a", "1", tier("web,db"))) },
			indexState{"web": {"ns/a"}, "db": {"ns/a"}}},
		{"add second", func() error { return idx.Add(storePod("ns", "b", "2", tier("web"))) },
			indexState{"web": {"ns/a", "ns/b"}, "db": {"ns/a"}}},
		{"update moves a value", func() error { return idx.Update(storePod("ns", "a", "3", tier("web,cache"))) },
			indexState{"web": {"ns/a", "ns/b"}, "cache": {"ns/a"}}},
		{"update unchanged single value", func() error { return idx.Update(storePod("ns", "b", "4", tier("web"))) },
			indexState{"web": {"ns/a", "ns/b"}, "cache": {"ns/a"}}},
		{"update to no values", func() error { return idx.Update(storePod("ns", "a", "5", nil)) },
			indexState{"web": {"ns/b"}}},
		{"delete drops empty set", func() error { return idx.Delete(storePod("ns", "b", "6", nil)) },
			indexState{}},
		{"duplicate values in one object", func() error { return idx.Add(storePod("ns", "c", "7", tier("x,x"))) },
			indexState{"x": {"ns/c"}}},
	}
	for _, s := range steps {
		require.NoError(t, s.do(), s.name)
		assert.Equal(t, s.want, indexStateOf(t, idx, "tier"), s.name)
	}
}

func TestIndexQueries(t *testing.T) {
	idx := newTierIndexer()
	for _, p := range []*corev1.Pod{
		storePod("ns1", "a", "1", map[string]string{"tier": "web,db"}),
		storePod("ns1", "b", "2", map[string]string{"tier": "db"}),
		storePod("ns2", "c", "3", map[string]string{"tier": "cache"}),
		storePod("ns2", "d", "4", map[string]string{"tier": "web"}),
	} {
		require.NoError(t, idx.Add(p))
	}

	got, err := idx.ByIndex("tier", "db")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1/a", "ns1/b"}, podKeys(got))

	// Index: objects sharing any value with the probe, each once.
	got, err = idx.Index("tier", storePod("", "probe", "", map[string]string{"tier": "web,db"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1/a", "ns1/b", "ns2/d"}, podKeys(got))
	got, err = idx.Index(NamespaceIndex, storePod("ns2", "probe", "", nil))
	require.NoError(t, err)
	assert.Equal(t, []string{"ns2/c", "ns2/d"}, podKeys(got))

	// IndexKeys is sorted.
	keys, err := idx.IndexKeys(NamespaceIndex, "ns1")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1/a", "ns1/b"}, keys)
	keys, err = idx.IndexKeys("tier", "none")
	require.NoError(t, err)
	assert.Empty(t, keys)

	assert.Equal(t, []string{"cache", "db", "web"}, storeSorted(idx.ListIndexFuncValues("tier")))
	assert.Equal(t, []string{"ns1", "ns2"}, storeSorted(idx.ListIndexFuncValues(NamespaceIndex)))
	assert.Empty(t, idx.ListIndexFuncValues("nope"))
	assert.Len(t, idx.GetIndexers(), 2)
}

func TestIndexUnknownName(t *testing.T) {
	idx := newTierIndexer()
	require.NoError(t, idx.Add(storePod("ns", "a", "1", nil)))
	const want = "Index with name nope does not exist"
	_, err := idx.Index("nope", storePod("ns", "a", "", nil))
	assert.EqualError(t, err, want)
	_, err = idx.IndexKeys("nope", "x")
	assert.EqualError(t, err, want)
	_, err = idx.ByIndex("nope", "x")
	assert.EqualError(t, err, want)
}

func TestAddIndexers(t *testing.T) {
	idx := NewIndexer(MetaNamespaceKeyFunc, nil)
	require.NoError(t, idx.Add(storePod("ns1", "a", "1", map[string]string{"tier": "web"})))
	require.NoError(t, idx.Add(storePod("ns2", "b", "2", nil)))
	before := idx.GetIndexers()

	require.NoError(t, idx.AddIndexers(Indexers{"tier": labelIndexFunc, NamespaceIndex: MetaNamespaceIndexFunc}))
	assert.Equal(t, indexState{"web": {"ns1/a"}}, indexStateOf(t, idx, "tier"))
	assert.Equal(t, indexState{"ns1": {"ns1/a"}, "ns2": {"ns2/b"}}, indexStateOf(t, idx, NamespaceIndex))
	assert.Empty(t, before, "a map returned by GetIndexers is not modified later")

	// Later writes maintain the added indices.
	require.NoError(t, idx.Add(storePod("ns1", "c", "3", map[string]string{"tier": "web"})))
	assert.Equal(t, indexState{"web": {"ns1/a", "ns1/c"}}, indexStateOf(t, idx, "tier"))

	err := idx.AddIndexers(Indexers{"tier": labelIndexFunc, "other": labelIndexFunc})
	assert.EqualError(t, err, "indexer conflict: map[tier:{}]")
	assert.Len(t, idx.GetIndexers(), 2)
}

func TestMetaNamespaceIndexFunc(t *testing.T) {
	got, err := MetaNamespaceIndexFunc(storePod("ns", "a", "", nil))
	require.NoError(t, err)
	assert.Equal(t, []string{"ns"}, got)

	got, err = MetaNamespaceIndexFunc("no meta")
	assert.Equal(t, []string{""}, got)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "object has no meta")
}

func TestIndexFuncToKeyFuncAdapter(t *testing.T) {
	tests := []struct {
		values []string
		err    error
		key    string
		msg    string
	}{
		{values: []string{"k"}, key: "k"},
		{values: nil, msg: "unexpected empty indexKeys"},
		{values: []string{"a", "b"}, msg: "too many keys: [a b]"},
		{err: errIndexFailed, msg: "index failed"},
	}
	for _, tc := range tests {
		kf := IndexFuncToKeyFuncAdapter(func(any) ([]string, error) { return tc.values, tc.err })
		key, err := kf(nil)
		if tc.msg != "" {
			assert.EqualError(t, err, tc.msg)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.key, key)
	}
}

// TestIndexFuncErrorKeepsStoreConsistent checks fanout's replacement for
// client-go's panic: a refused write keeps the previous state.
func TestIndexFuncErrorKeepsStoreConsistent(t *testing.T) {
	fail := map[string]string{"fail": "", "tier": "x"}
	tests := []struct {
		name string
		op   func(Indexer) error
	}{
		{"Add new", func(i Indexer) error { return i.Add(storePod("ns", "new", "9", fail)) }},
		{"Update existing", func(i Indexer) error { return i.Update(storePod("ns", "a", "9", fail)) }},
		{"Replace", func(i Indexer) error {
			return i.Replace([]any{storePod("ns", "z", "8", nil), storePod("ns", "y", "9", fail)}, "9")
		}},
		{"AddIndexers", func(i Indexer) error {
			return i.AddIndexers(Indexers{"strict": func(any) ([]string, error) { return nil, errIndexFailed }})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx := newTierIndexer()
			require.NoError(t, idx.Add(storePod("ns", "a", "1", map[string]string{"tier": "web"})))
			require.NoError(t, idx.Add(storePod("ns", "b", "2", map[string]string{"tier": "db"})))

			err := tc.op(idx)
			require.ErrorIs(t, err, errIndexFailed)
			assert.Contains(t, err.Error(), "on index \"")

			assert.Equal(t, []string{"ns/a", "ns/b"}, storeSorted(idx.ListKeys()))
			item, _, _ := idx.GetByKey("ns/a")
			assert.Equal(t, "1", item.(*corev1.Pod).ResourceVersion)
			assert.Equal(t, indexState{"web": {"ns/a"}, "db": {"ns/b"}}, indexStateOf(t, idx, "tier"))
			assert.Equal(t, indexState{"ns": {"ns/a", "ns/b"}}, indexStateOf(t, idx, NamespaceIndex))
			assert.Equal(t, "2", idx.LastStoreSyncResourceVersion())
			assert.Len(t, idx.GetIndexers(), 2)
		})
	}
}

// TestIndexDeleteWhenOldValuesFail: an index function that fails on the
// stored object cannot block its deletion or leave a stale index entry.
func TestIndexDeleteWhenOldValuesFail(t *testing.T) {
	broken := false
	fn := func(obj any) ([]string, error) {
		if broken {
			return nil, errIndexFailed
		}
		return labelIndexFunc(obj)
	}
	idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{"tier": fn})
	require.NoError(t, idx.Add(storePod("ns", "a", "1", map[string]string{"tier": "web,db"})))
	require.NoError(t, idx.Add(storePod("ns", "b", "2", map[string]string{"tier": "web"})))

	broken = true
	require.NoError(t, idx.Delete(storePod("ns", "a", "3", nil)))
	assert.Equal(t, []string{"ns/b"}, idx.ListKeys())
	assert.Equal(t, indexState{"web": {"ns/b"}}, indexStateOf(t, idx, "tier"))
}

func TestThreadSafeStoreRefusedWriteKeepsState(t *testing.T) {
	s := NewThreadSafeStore(Indexers{"tier": labelIndexFunc}, Indices{})
	s.Add("k", storePod("ns", "k", "1", map[string]string{"tier": "web"}))
	s.Update("k", storePod("ns", "k", "2", map[string]string{"fail": ""}))
	s.Replace(map[string]any{"z": storePod("ns", "z", "3", map[string]string{"fail": ""})}, "3")

	item, ok := s.Get("k")
	require.True(t, ok)
	assert.Equal(t, "1", item.(*corev1.Pod).ResourceVersion)
	assert.Equal(t, []string{"k"}, s.ListKeys())
	keys, err := s.IndexKeys("tier", "web")
	require.NoError(t, err)
	assert.Equal(t, []string{"k"}, keys)
	assert.Equal(t, "1", s.LastStoreSyncResourceVersion())
}

func TestTypedIndexer(t *testing.T) {
	byName := TypedIndexers[*corev1.Pod]{"name": func(p *corev1.Pod) ([]string, error) { return []string{p.Name}, nil }}
	idx := NewIndexer(MetaNamespaceKeyFunc, TypedIndexersToIndexers(byName))
	typed := NewTypedIndexer[*corev1.Pod](idx)
	require.NoError(t, typed.AddTypedIndexers(TypedIndexers[*corev1.Pod]{
		"tier": func(p *corev1.Pod) ([]string, error) { return []string{p.Labels["tier"]}, nil },
	}))
	require.NoError(t, typed.Add(storePod("ns1", "a", "1", map[string]string{"tier": "web"})))
	require.NoError(t, typed.Add(storePod("ns2", "a", "2", map[string]string{"tier": "db"})))

	pods, err := typed.ByTypedIndex("name", "a")
	require.NoError(t, err)
	assert.Len(t, pods, 2)
	pods, err = typed.TypedIndex("tier", storePod("", "", "", map[string]string{"tier": "db"}))
	require.NoError(t, err)
	require.Len(t, pods, 1)
	assert.Equal(t, "ns2", pods[0].Namespace)
	_, err = typed.ByTypedIndex("nope", "a")
	assert.EqualError(t, err, "Index with name nope does not exist")

	// An object of the wrong type is an error, not a panic.
	fn := TypedIndexerFuncToIndexerFunc(byName["name"])
	_, err = fn("a string")
	assert.EqualError(t, err, "object of type string is not of the expected type *v1.Pod")
	err = idx.Add(&corev1.Node{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "object of type *v1.Node is not of the expected type *v1.Pod")

	untyped := NewIndexer(func(o any) (string, error) { return "k", nil }, Indexers{"all": func(any) ([]string, error) { return []string{"v"}, nil }})
	require.NoError(t, untyped.Add("not a pod"))
	_, err = NewTypedIndexer[*corev1.Pod](untyped).ByTypedIndex("all", "v")
	assert.EqualError(t, err, "object of type string is not of the expected type *v1.Pod")
}
