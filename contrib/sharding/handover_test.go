package sharding

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/informer"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
)

// exclusive checks that no two replicas hold an object at once: a replica
// holds it from an add until its delete.
type exclusive struct {
	t     *testing.T
	mu    sync.Mutex
	owner map[string]string
}

func (e *exclusive) handler(replica string) informer.ResourceEventHandler {
	claim := func(obj interface{}) {
		name := obj.(*corev1.ConfigMap).Name
		e.mu.Lock()
		defer e.mu.Unlock()
		if o, ok := e.owner[name]; ok && o != replica {
			e.t.Errorf("%s delivers %s while %s holds it", replica, name, o)
		}
		e.owner[name] = replica
	}
	return informer.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { claim(obj) },
		UpdateFunc: func(_, obj interface{}) { claim(obj) },
		DeleteFunc: func(obj interface{}) {
			if d, ok := obj.(informer.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			name := obj.(*corev1.ConfigMap).Name
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.owner[name] == replica {
				delete(e.owner, name)
			}
		},
	}
}

// TestShardedHandoverEndToEnd: two replicas with coordinators on one fake
// apiserver, objects created, updated and deleted throughout. A replica
// joining and one leaving move ranges without any moment at which two
// replicas hold one object, and at rest the replicas' stores partition
// the server's objects.
func TestShardedHandoverEndToEnd(t *testing.T) {
	for _, serverSharding := range []bool{true, false} {
		t.Run(fmt.Sprintf("serverSharding=%v", serverSharding), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				rng := rand.New(rand.NewPCG(21, 22))
				src := newObjectSource(t, serverSharding, 8)
				api := leasetest.NewAPI()
				clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
				ex := &exclusive{t: t, owner: map[string]string{}}
				n := 0
				churn := func() {
					for range 8 {
						src.create(t, rng, fmt.Sprintf("cm-%d", n))
						n++
					}
					list, err := src.cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
					require.NoError(t, err)
					for i := range list.Items {
						cm := &list.Items[i]
						switch rng.IntN(10) {
						case 0:
							require.NoError(t, src.cs.CoreV1().ConfigMaps("default").Delete(ctx, cm.Name, metav1.DeleteOptions{}))
						case 1, 2:
							cm.Data = map[string]string{"v": fmt.Sprint(rng.Int())}
							_, err := src.cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
							require.NoError(t, err)
						}
					}
				}
				type replica struct {
					inf   *ShardedInformer
					coord *ring.Coordinator
				}
				newReplica := func(id string) replica {
					s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
					_, err := s.AddEventHandler(ex.handler(id))
					require.NoError(t, err)
					c, err := ring.NewCoordinator(testConfig(api, clk, id, 8), s, ring.CoordinatorOptions{})
					require.NoError(t, err)
					return replica{s, c}
				}
				rounds := func(rs ...replica) {
					for range 3 {
						for _, r := range rs {
							r.coord.Round(ctx, false)
							synctest.Wait() // informers list, drains finish
							churn()
							synctest.Wait()
						}
						clk.Step(2 * time.Second)
					}
				}
				checkPartition := func(rs ...replica) {
					t.Helper()
					list, err := src.cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
					require.NoError(t, err)
					var want, got []string
					for _, cm := range list.Items {
						want = append(want, cm.Name)
					}
					for _, r := range rs {
						got = append(got, storeNames(r.inf.GetStore())...)
					}
					slices.Sort(want)
					slices.Sort(got)
					assert.Equal(t, want, got, "stores partition the server's objects")
					ex.mu.Lock()
					assert.Len(t, ex.owner, len(want), "handlers hold every object once")
					ex.mu.Unlock()
				}

				churn()
				a := newReplica("a")
				rounds(a)
				checkPartition(a)
				assert.Len(t, a.inf.OwnedRanges(), 8)

				b := newReplica("b")
				rounds(a, b)
				checkPartition(a, b)
				assert.Len(t, b.inf.OwnedRanges(), len(ring.Owned("b", []string{"a", "b"}, 8)))

				// a leaves the ring gracefully: b takes everything.
				require.NoError(t, a.coord.Membership().Leave(ctx))
				for range 4 {
					a.coord.Round(ctx, true)
					synctest.Wait()
					a.coord.Round(ctx, true)
					b.coord.Round(ctx, false)
					synctest.Wait()
					churn()
					synctest.Wait()
					clk.Step(2 * time.Second)
				}
				assert.Empty(t, a.inf.OwnedRanges())
				assert.Len(t, b.inf.OwnedRanges(), 8)
				checkPartition(a, b)

				for _, r := range b.inf.OwnedRanges() {
					b.inf.StopRange(ctx, r, false)
				}
				a.inf.Wait()
				b.inf.Wait()
			})
		})
	}
}

func TestHasShardInfo(t *testing.T) {
	assert.False(t, hasShardInfo(&corev1.ConfigMapList{}))
	u := &unstructured.UnstructuredList{Object: map[string]interface{}{"metadata": map[string]interface{}{}}}
	assert.False(t, hasShardInfo(u))
	u.Object["metadata"] = map[string]interface{}{"shardInfo": map[string]interface{}{"selector": "x"}}
	assert.True(t, hasShardInfo(u))
	if !linkedCanShard() {
		t.Skip("the linked k8s.io/apimachinery predates v0.36: typed lists have no ShardInfo")
	}
	cms := &corev1.ConfigMapList{}
	setShardInfo(&cms.ListMeta, "x")
	assert.True(t, hasShardInfo(cms))
	meta := &metav1.PartialObjectMetadataList{}
	setShardInfo(&meta.ListMeta, "")
	assert.True(t, hasShardInfo(meta))
}
