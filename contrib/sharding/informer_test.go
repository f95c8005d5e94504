package sharding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kfanout/fanout/informer"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

// objectSource is a fake apiserver for ConfigMaps: client-go's fake
// clientset, which ignores ShardSelector. With sharding set, lists and
// watches apply the selector of the requested range (found by its string)
// and lists carry ShardInfo, as a server with ShardedListAndWatch does.
type objectSource struct {
	cs       *fake.Clientset
	sharding bool
	ranges   map[string]Range
	listed   atomic.Int64 // items returned by lists
	mu       sync.Mutex
	seen     []string // shard selectors requested
}

// A source that shards skips the test where the linked apimachinery has no
// shard selector (before v0.36): requests cannot name their range.
func newObjectSource(t testing.TB, sharding bool, count int) *objectSource {
	t.Helper()
	if sharding && !linkedCanShard() {
		t.Skip("the linked k8s.io/apimachinery predates v0.36: no shard selector for a server to apply")
	}
	src := &objectSource{cs: fake.NewClientset(), sharding: sharding, ranges: map[string]Range{}}
	rs, _ := ring.Ranges(count)
	for _, r := range rs {
		src.ranges[r.Selector(KeyUID)] = r
	}
	return src
}

func (src *objectSource) lw() informer.ListerWatcher {
	return &informer.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			src.mu.Lock()
			src.seen = append(src.seen, shardSelectorOf(&o))
			src.mu.Unlock()
			list, err := src.cs.CoreV1().ConfigMaps("").List(ctx, o)
			if err != nil || !src.sharding {
				if err == nil {
					src.listed.Add(int64(len(list.Items)))
				}
				return list, err
			}
			r := src.ranges[shardSelectorOf(&o)]
			list.Items = slices.DeleteFunc(list.Items, func(cm corev1.ConfigMap) bool {
				h, _ := ring.HashObject(KeyUID, &cm)
				return !r.Contains(h)
			})
			setShardInfo(&list.ListMeta, shardSelectorOf(&o))
			src.listed.Add(int64(len(list.Items)))
			return list, nil
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := src.cs.CoreV1().ConfigMaps("").Watch(ctx, o)
			if err != nil || !src.sharding {
				return w, err
			}
			r := src.ranges[shardSelectorOf(&o)]
			return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
				cm, ok := e.Object.(*corev1.ConfigMap)
				if !ok {
					return e, true
				}
				h, _ := ring.HashObject(KeyUID, cm)
				return e, r.Contains(h)
			}), nil
		},
	}
}

func (src *objectSource) create(t *testing.T, rng *rand.Rand, name string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(leasetest.RandomUID(rng))}}
	out, err := src.cs.CoreV1().ConfigMaps("default").Create(context.Background(), cm, metav1.CreateOptions{})
	require.NoError(t, err)
	return out
}

// recorder is a handler that keeps the set of objects it was told about.
type recorder struct {
	mu       sync.Mutex
	objects  map[string]bool
	adds     int
	deletes  []interface{}
	inCall   atomic.Int32
	overlaps atomic.Int32
}

func newRecorder() *recorder { return &recorder{objects: map[string]bool{}} }

func (r *recorder) enter() func() {
	if r.inCall.Add(1) > 1 {
		r.overlaps.Add(1)
	}
	return func() { r.inCall.Add(-1) }
}

func (r *recorder) OnAdd(obj interface{}, _ bool) {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.adds++
	r.objects[obj.(*corev1.ConfigMap).Name] = true
}

func (r *recorder) OnUpdate(_, newObj interface{}) {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.objects[newObj.(*corev1.ConfigMap).Name] = true
}

func (r *recorder) OnDelete(obj interface{}) {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deletes = append(r.deletes, obj)
	if d, ok := obj.(informer.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	delete(r.objects, obj.(*corev1.ConfigMap).Name)
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for n := range r.objects {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// namesIn returns the sorted names of objs whose uid hash lies in one of
// ranges.
func namesIn(objs []*corev1.ConfigMap, ranges ...Range) []string {
	var out []string
	for _, cm := range objs {
		h, _ := ring.HashObject(KeyUID, cm)
		for _, r := range ranges {
			if r.Contains(h) {
				out = append(out, cm.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func storeNames(s informer.Store) []string {
	var out []string
	for _, o := range s.List() {
		out = append(out, o.(*corev1.ConfigMap).Name)
	}
	slices.Sort(out)
	return out
}

// countingMetrics counts client-side filtering.
type countingMetrics struct {
	ring.NoMetrics
	filtered atomic.Int64
}

func (m *countingMetrics) ClientFiltered(_ Range, n int) { m.filtered.Add(int64(n)) }

// TestShardedInformerServesOwnedRanges runs the informer on both kinds of
// server: with ShardInfo (the server filters) and without (the client
// filters). Either way a handler sees exactly the owned ranges' objects,
// initial lists are covered by HasSynced, later events of other ranges are
// not delivered, and the store holds only owned objects.
func TestShardedInformerServesOwnedRanges(t *testing.T) {
	for _, serverSharding := range []bool{true, false} {
		t.Run(fmt.Sprintf("serverSharding=%v", serverSharding), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				rng := rand.New(rand.NewPCG(11, 12))
				src := newObjectSource(t, serverSharding, 8)
				var objs []*corev1.ConfigMap
				for i := range 200 {
					objs = append(objs, src.create(t, rng, fmt.Sprintf("cm-%d", i)))
				}
				metrics := &countingMetrics{}
				s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{Metrics: metrics})
				rec := newRecorder()
				reg, err := s.AddEventHandler(rec)
				require.NoError(t, err)
				rs, _ := ring.Ranges(8)
				owned := []Range{rs[1], rs[3], rs[6]}
				for _, r := range owned {
					s.StartRange(ctx, r)
				}
				assert.False(t, reg.HasSynced(), "not settled before the first round")
				s.RoundDone()
				<-reg.HasSyncedChecker().Done()
				assert.True(t, s.HasSynced())
				want := namesIn(objs, owned...)
				require.NotEmpty(t, want)
				assert.Equal(t, want, rec.names(), "initial lists")
				assert.Equal(t, want, storeNames(s.GetStore()))

				for i := range 100 {
					objs = append(objs, src.create(t, rng, fmt.Sprintf("late-%d", i)))
				}
				synctest.Wait()
				want = namesIn(objs, owned...)
				assert.Equal(t, want, rec.names(), "watch events")
				assert.Equal(t, want, storeNames(s.GetStore()))
				_, found, err := s.GetStore().GetByKey("default/" + want[0])
				require.NoError(t, err)
				assert.True(t, found)
				for _, name := range namesIn(objs, rs[0]) {
					_, found, err := s.GetStore().GetByKey("default/" + name)
					require.NoError(t, err)
					assert.False(t, found, "object of an unowned range served")
				}
				for _, ri := range s.ownedRanges() {
					assert.Equal(t, !serverSharding, ri.lw.filtering.Load(), "range %v filters on the client", ri.r)
				}
				if serverSharding {
					assert.Zero(t, metrics.filtered.Load())
					assert.Equal(t, int64(len(namesIn(objs[:200], owned...))), src.listed.Load())
				} else {
					// Each of 3 ranges got the 200 objects in its list and
					// the 100 later ones on its watch, and kept its own.
					assert.Equal(t, int64(3*300-len(want)), metrics.filtered.Load())
				}
				assert.Zero(t, rec.overlaps.Load(), "calls to one handler overlapped")
				cancel()
				for _, r := range owned {
					s.StopRange(context.Background(), r, false)
				}
				s.Wait()
			})
		})
	}
}

// TestShardedInformerRangeMoves: a range that stops is delivered as
// deletes wrapped in DeletedFinalStateUnknown, and leaves the store; a
// range that starts is delivered as adds, and HasSynced covers it.
func TestShardedInformerRangeMoves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(13, 14))
		src := newObjectSource(t, true, 4)
		var objs []*corev1.ConfigMap
		for i := range 100 {
			objs = append(objs, src.create(t, rng, fmt.Sprintf("cm-%d", i)))
		}
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
		rs, _ := ring.Ranges(4)
		s.StartRange(ctx, rs[0])
		s.StartRange(ctx, rs[1])
		s.RoundDone()
		rec := newRecorder()
		reg, err := s.AddEventHandler(rec) // late handler: replayed adds
		require.NoError(t, err)
		<-reg.HasSyncedChecker().Done()
		assert.Equal(t, namesIn(objs, rs[0], rs[1]), rec.names())

		s.StopRange(ctx, rs[0], true)
		assert.Equal(t, namesIn(objs, rs[1]), rec.names())
		assert.Equal(t, namesIn(objs, rs[1]), storeNames(s.GetStore()))
		require.Len(t, rec.deletes, len(namesIn(objs, rs[0])))
		for _, d := range rec.deletes {
			dfsu, ok := d.(informer.DeletedFinalStateUnknown)
			require.True(t, ok, "%T", d)
			assert.Equal(t, "default/"+dfsu.Obj.(*corev1.ConfigMap).Name, dfsu.Key)
		}

		src.mu.Lock() // holds the new range's list back (List takes it)
		s.StartRange(ctx, rs[2])
		assert.False(t, reg.HasSynced(), "the new range's list is not handled yet")
		src.mu.Unlock()
		synctest.Wait()
		assert.True(t, reg.HasSynced())
		assert.Equal(t, namesIn(objs, rs[1], rs[2]), rec.names())
		var owned []int
		for _, r := range s.OwnedRanges() {
			owned = append(owned, r.Index)
		}
		assert.ElementsMatch(t, []int{1, 2}, owned)

		require.NoError(t, informer.ShutDownEventHandler(s, reg))
		s.StopRange(ctx, rs[1], true)
		assert.Equal(t, namesIn(objs, rs[1], rs[2]), rec.names(), "a removed handler gets no deletes")
		s.StopRange(ctx, rs[2], false)
		s.Wait()
	})
}

// TestShardedInformerIndexers: indexers given in the options and added
// later apply to every range; the merged indexer answers over all owned
// ranges and refuses writes.
func TestShardedInformerIndexers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(15, 16))
		src := newObjectSource(t, false, 2)
		var objs []*corev1.ConfigMap
		for i := range 50 {
			objs = append(objs, src.create(t, rng, fmt.Sprintf("cm-%d", i)))
		}
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{Informer: informer.SharedIndexInformerOptions{
			Indexers: informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc},
		}})
		rs, _ := ring.Ranges(2)
		s.StartRange(ctx, rs[1])
		s.RoundDone()
		synctest.Wait()
		require.True(t, s.HasSynced())
		require.NoError(t, s.AddIndexers(informer.Indexers{"name": func(obj interface{}) ([]string, error) {
			return []string{obj.(*corev1.ConfigMap).Name}, nil
		}}))
		s.StartRange(ctx, rs[0])
		synctest.Wait()
		got, err := s.GetIndexer().ByIndex(informer.NamespaceIndex, "default")
		require.NoError(t, err)
		assert.Len(t, got, 50)
		byName, err := s.GetIndexer().ByIndex("name", objs[7].Name)
		require.NoError(t, err)
		assert.Len(t, byName, 1)
		assert.ErrorIs(t, s.GetStore().Add(objs[0]), errReadOnly)
		assert.Error(t, s.SetTransform(nil), "started")
		s.StopRange(ctx, rs[0], true)
		s.StopRange(ctx, rs[1], true)
		s.Wait()
	})
}

// TestShardedInformerNamespaceKey: with KeyNamespace a range holds whole
// namespaces (client-side filtering here, as the fake server ignores the
// selector).
func TestShardedInformerNamespaceKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(17, 18))
		src := newObjectSource(t, false, 4)
		want := map[string]bool{}
		rs, _ := ring.Ranges(4)
		var namespaces []string
		for range 12 {
			namespaces = append(namespaces, "team-"+leasetest.RandomUID(rng)[:8])
		}
		owned := rs[ring.RangeIndex(ring.Hash(namespaces[0]), 4)]
		for i := range 60 {
			ns := namespaces[i%12]
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%d", i), UID: types.UID(leasetest.RandomUID(rng))}}
			_, err := src.cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
			require.NoError(t, err)
			if owned.Contains(ring.Hash(ns)) {
				want[ns+"/"+cm.Name] = true
			}
		}
		require.NotEmpty(t, want)
		require.Less(t, len(want), 60, "the range must leave some namespaces out")
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{Key: KeyNamespace})
		s.StartRange(ctx, owned)
		s.RoundDone()
		synctest.Wait()
		require.True(t, s.HasSynced())
		got := map[string]bool{}
		for _, k := range s.GetStore().ListKeys() {
			got[k] = true
		}
		assert.Equal(t, want, got)
		s.StopRange(ctx, owned, true)
		s.Wait()
	})
}
