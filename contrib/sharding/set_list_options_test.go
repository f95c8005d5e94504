package sharding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
	"github.com/kfanout/fanout/informer"
)

// TestShardedSetListOptions switches the label selector of a sharded
// informer owning two ranges: each range's objects that leave the
// selection are deleted (tombstones), the cache and the handler hold the
// selected objects of the owned ranges, a range started later lists with
// the new selector, a graceful handover still drains, and a selector that
// does not parse changes nothing.
func TestShardedSetListOptions(t *testing.T) {
	for _, sharding := range []bool{true, false} {
		t.Run(fmt.Sprintf("serverSharding=%v", sharding), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				rng := rand.New(rand.NewPCG(27, 1))
				src := newObjectSource(t, sharding, 4)
				var objs, red []*corev1.ConfigMap
				for i := range 60 {
					cm := src.create(t, rng, fmt.Sprintf("cm-%d", i))
					if i%3 == 0 {
						cm.Labels = map[string]string{"color": "red"}
						var err error
						cm, err = src.cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
						require.NoError(t, err)
						red = append(red, cm)
					}
					objs = append(objs, cm)
				}
				s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
				rs, _ := ring.Ranges(4)
				rec := newRecorder()
				_, err := s.AddEventHandler(rec)
				require.NoError(t, err)
				s.StartRange(ctx, rs[0])
				s.StartRange(ctx, rs[1])
				s.RoundDone()
				synctest.Wait()
				require.True(t, s.HasSynced())
				require.Equal(t, namesIn(objs, rs[0], rs[1]), rec.names())

				require.ErrorIs(t, s.SetListOptions(ctx, informer.ListScope{Tweak: func(o *metav1.ListOptions) { o.LabelSelector = "color in (" }}), informer.ErrInvalidListScope)
				synctest.Wait()
				require.Empty(t, rec.deletes, "a bad selector changes nothing")

				require.NoError(t, s.SetListOptions(ctx, informer.ListScope{Tweak: func(o *metav1.ListOptions) { o.LabelSelector = "color=red" }}))
				require.True(t, s.HasSynced())
				synctest.Wait()
				assert.Equal(t, namesIn(red, rs[0], rs[1]), rec.names())
				assert.Equal(t, namesIn(red, rs[0], rs[1]), storeNames(s.GetStore()))
				assert.Len(t, rec.deletes, len(namesIn(objs, rs[0], rs[1]))-len(namesIn(red, rs[0], rs[1])))
				for _, d := range rec.deletes {
					_, ok := d.(informer.DeletedFinalStateUnknown)
					assert.True(t, ok, "%T", d)
				}
				assert.Zero(t, rec.overlaps.Load())

				s.mu.Lock()
				ri := s.ranges[rs[0].Index]
				s.mu.Unlock()
				ri.lw.mu.Lock()
				recorded := len(ri.lw.final)
				ri.lw.mu.Unlock()
				assert.Equal(t, len(namesIn(red, rs[0])), recorded, "the drain's record is the new selection")

				s.StartRange(ctx, rs[2])
				synctest.Wait()
				assert.Equal(t, namesIn(red, rs[0], rs[1], rs[2]), rec.names(), "a new range uses the new selector")

				s.StopRange(ctx, rs[0], true)
				assert.Equal(t, namesIn(red, rs[1], rs[2]), rec.names())
				s.StopRange(ctx, rs[1], false)
				s.StopRange(ctx, rs[2], false)
				s.Wait()
			})
		})
	}
}

// TestShardedSetListOptionsSwitching: while a range cannot list with the
// new options, the sharded informer stays synced on the old ones and its
// SyncStatus says it is switching, since the switch was asked for; once
// the lists succeed, the switch ends.
func TestShardedSetListOptionsSwitching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(27, 2))
		src := newObjectSource(t, true, 2)
		for i := range 10 {
			src.create(t, rng, fmt.Sprintf("cm-%d", i))
		}
		var refuse atomic.Bool
		src.cs.PrependReactor("list", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
			o := a.(k8stesting.ListActionImpl).ListOptions
			if refuse.Load() && o.LabelSelector == "color=blue" && o.Limit != 1 { // SetListOptions' probes pass
				return true, nil, apierrors.NewServiceUnavailable("down")
			}
			return false, nil, nil
		})
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
		// apimachinery's HandleError rate limit keeps its last time in a
		// global: from outside the bubble it would sleep for years here.
		require.NoError(t, s.SetWatchErrorHandlerWithContext(func(context.Context, *informer.Reflector, error) {}))
		rs, _ := ring.Ranges(2)
		for _, r := range rs {
			s.StartRange(ctx, r)
		}
		s.RoundDone()
		synctest.Wait()
		require.False(t, s.SyncStatus().Switching)

		refuse.Store(true)
		start := time.Now()
		require.NoError(t, s.SetListOptions(ctx, informer.ListScope{Tweak: func(o *metav1.ListOptions) { o.LabelSelector = "color=blue" }}))
		synctest.Wait()
		st := s.SyncStatus()
		assert.Equal(t, informer.SyncSynced, st.State)
		assert.True(t, st.Switching, "%v", st)
		assert.Equal(t, start, st.SwitchingSince)
		assert.Positive(t, st.Attempts)
		assert.True(t, apierrors.IsServiceUnavailable(st.LastError), "%v", st.LastError)
		assert.Contains(t, st.String(), "switching to new list options")
		assert.True(t, s.HasSynced())

		refuse.Store(false)
		time.Sleep(time.Minute) // past the backoff
		synctest.Wait()
		assert.False(t, s.SyncStatus().Switching)
		assert.Empty(t, s.GetStore().List(), "no object is blue")
		for _, r := range rs {
			s.StopRange(context.Background(), r, false)
		}
		s.Wait()
	})
}
