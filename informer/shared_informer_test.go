package informer

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestSharedInformerLifecycle(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src, inf := siSetup(SharedIndexInformerOptions{InOrder: queueOption(inOrder)})
		early := &siRecorder{}
		reg, err := inf.AddEventHandler(early)
		require.NoError(t, err)
		assert.False(t, inf.HasSynced())
		assert.False(t, reg.HasSynced())
		assert.Equal(t, "", inf.LastSyncResourceVersion())

		stop := siRun(t, inf)
		synctest.Wait()
		assert.True(t, inf.HasSynced())
		assert.True(t, reg.HasSynced())
		assert.True(t, IsDone(inf.HasSyncedChecker()))
		assert.Equal(t, "SharedIndexInformer *v1.Pod", inf.HasSyncedChecker().Name())
		assert.Equal(t, []string{"add ns/a@1 initial=true", "add ns/b@2 initial=true"}, early.take())
		assert.Equal(t, "2", inf.LastSyncResourceVersion())
		assert.Equal(t, "2", inf.GetController().LastSyncResourceVersion())

		src.Modify(siPod("a", "x"))
		src.Add(siPod("c"))
		src.Delete(siPod("b"))
		synctest.Wait()
		assert.Equal(t, []string{
			"update ns/a@1 -> ns/a@3[x]",
			"add ns/c@4 initial=false",
			"delete ns/b@5",
		}, early.take())
		assert.Equal(t, []string{"ns/a", "ns/c"}, storeSorted(inf.GetStore().ListKeys()))

		// A late handler gets the cache replayed as initial-list adds.
		late := &siRecorder{}
		lateReg, err := inf.AddEventHandler(late)
		require.NoError(t, err)
		synctest.Wait()
		assert.True(t, lateReg.HasSynced())
		assert.ElementsMatch(t, []string{"add ns/a@3[x] initial=true", "add ns/c@4 initial=true"}, late.take())
		assert.Empty(t, early.take(), "the replay is only for the new handler")

		// A second Run is ignored.
		ctx, cancel := context.WithCancel(context.Background())
		inf.RunWithContext(ctx) // returns at once
		cancel()

		assert.False(t, inf.IsStopped())
		stop()
		assert.True(t, inf.IsStopped())
		_, err = inf.AddEventHandler(&siRecorder{})
		assert.ErrorContains(t, err, "was not added to shared informer because it has stopped already")
		assert.ErrorContains(t, inf.AddIndexers(Indexers{"x": MetaNamespaceIndexFunc}), "stopped")
	})
}

func TestSharedInformerSetAfterStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf := siSetup(SharedIndexInformerOptions{})
		require.NoError(t, inf.SetTransform(func(o any) (any, error) { return o, nil }))
		require.NoError(t, inf.SetWatchErrorHandler(func(*Reflector, error) {}))
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		assert.EqualError(t, inf.SetTransform(nil), "informer has already started")
		assert.EqualError(t, inf.SetWatchErrorHandler(func(*Reflector, error) {}), "informer has already started")
		assert.EqualError(t, inf.SetWatchErrorHandlerWithContext(func(context.Context, *Reflector, error) {}), "informer has already started")
	})
}

func TestSharedInformerTransform(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src, inf := siSetup(SharedIndexInformerOptions{InOrder: queueOption(inOrder)})
		var calls int
		require.NoError(t, inf.SetTransform(func(o any) (any, error) {
			calls++
			p := o.(*corev1.Pod).DeepCopy() // the source shares its objects
			p.Labels = map[string]string{"l": "t"}
			return p, nil
		}))
		rec := &siRecorder{}
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		src.Modify(siPod("a"))
		synctest.Wait()
		assert.Equal(t, []string{"add ns/a@1[t] initial=true", "add ns/b@2[t] initial=true", "update ns/a@1[t] -> ns/a@3[t]"}, rec.take())
		assert.Equal(t, 3, calls, "the transform runs once per object entering the queue")
	})
}

func TestSharedInformerWatchErrorHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, inf := siSetup(SharedIndexInformerOptions{})
		src.FailList(errors.New("boom"))
		errs := make(chan error, 10)
		require.NoError(t, inf.SetWatchErrorHandler(func(r *Reflector, err error) {
			assert.NotNil(t, r)
			errs <- err
		}))
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		require.Len(t, errs, 1)
		assert.ErrorContains(t, <-errs, "boom")
		assert.False(t, inf.HasSynced())
		time.Sleep(2 * time.Second) // client-go's backoff: 800 ms plus jitter below 800 ms
		synctest.Wait()
		assert.True(t, inf.HasSynced())
	})
}

func TestSharedInformerRelistTombstones(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src, inf := siSetup(SharedIndexInformerOptions{InOrder: queueOption(inOrder)})
		rec := &siRecorder{}
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		rec.take()

		// The watch fails with 410 and the next list fails too, so the pod
		// is deleted while nothing watches: only the relist can notice.
		src.FailList(errors.New("unavailable"))
		src.SendWatchError(apierrors.NewResourceExpired("too old resource version"))
		synctest.Wait()
		src.Delete(siPod("b"))
		src.Add(siPod("c"))
		time.Sleep(10 * time.Second) // two backoffs: after the watch ended, after the failed list
		synctest.Wait()
		got := rec.take()
		// Per key the sequences are the same in both modes; RealFIFO
		// delivers the deletions of a relist first, DeltaFIFO last.
		want := []string{"update ns/a@1 -> ns/a@1", "add ns/c@4 initial=false", "delete tombstone(ns/b,ns/b@2)"}
		if inOrder {
			want = []string{"delete tombstone(ns/b,ns/b@2)", "update ns/a@1 -> ns/a@1", "add ns/c@4 initial=false"}
		}
		assert.Equal(t, want, got)
		assert.Equal(t, []string{"ns/a", "ns/c"}, storeSorted(inf.GetStore().ListKeys()))
	})
}

func TestSharedInformerWatchCloseRewatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, inf := siSetup(SharedIndexInformerOptions{})
		rec := &siRecorder{}
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		time.Sleep(2 * time.Second) // the watch is not "very short"
		src.CloseWatches()
		src.Add(siPod("c"))
		synctest.Wait()
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"add ns/a@1 initial=true", "add ns/b@2 initial=true", "add ns/c@3 initial=false"}, rec.take())
		lists := 0
		for _, c := range src.Calls() {
			if c.Verb == "list" {
				lists++
			}
		}
		assert.Equal(t, 1, lists, "a normal watch close re-watches without a relist: %v", src.CallStrings())
	})
}

func TestSharedInformerRemoveEventHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, inf := siSetup(SharedIndexInformerOptions{})
		keep, gone := &siRecorder{}, &siRecorder{}
		_, err := inf.AddEventHandler(keep)
		require.NoError(t, err)
		goneReg, err := inf.AddEventHandler(gone)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		require.NoError(t, ShutDownEventHandler(inf, goneReg))
		require.NoError(t, inf.RemoveEventHandler(goneReg), "removing twice is a no-op")
		src.Add(siPod("c"))
		synctest.Wait()
		assert.Len(t, keep.take(), 3)
		assert.Len(t, gone.take(), 2)
		assert.Error(t, inf.RemoveEventHandler(fakeRegistration{}), "a foreign handle is an error")
	})
}

type fakeRegistration struct{}

func (fakeRegistration) HasSynced() bool               { return true }
func (fakeRegistration) HasSyncedChecker() DoneChecker { return nil }

func TestSharedInformerRegistrationSyncWaitsForHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf := siSetup(SharedIndexInformerOptions{})
		slow := &siRecorder{block: make(chan struct{})}
		fast := &siRecorder{}
		slowReg, err := inf.AddEventHandler(slow)
		require.NoError(t, err)
		fastReg, err := inf.AddEventHandler(fast)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		assert.True(t, inf.HasSynced())
		assert.True(t, fastReg.HasSynced(), "a stalled handler does not delay another")
		assert.False(t, slowReg.HasSynced(), "not synced until the last initial OnAdd returned")
		slow.block <- struct{}{}
		synctest.Wait()
		assert.False(t, slowReg.HasSynced())
		slow.block <- struct{}{}
		synctest.Wait()
		assert.True(t, slowReg.HasSynced())
		close(slow.block)
	})
}

func TestSharedInformerResyncPeriods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf := siSetup(SharedIndexInformerOptions{ResyncPeriod: 10 * time.Second})
		every10, every3, never := &siRecorder{}, &siRecorder{}, &siRecorder{}
		_, err := inf.AddEventHandler(every10)
		require.NoError(t, err)
		// Before start, a shorter period lowers the informer's check period
		// (and is raised to the 1 s minimum first).
		_, err = inf.AddEventHandlerWithResyncPeriod(every3, 3*time.Second)
		require.NoError(t, err)
		_, err = inf.AddEventHandlerWithResyncPeriod(never, 0)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		for _, r := range []*siRecorder{every10, every3, never} {
			r.take()
		}
		time.Sleep(12*time.Second + time.Millisecond)
		synctest.Wait()
		// Each resync is one update per object (two objects).
		assert.Len(t, every3.take(), 8, "resynced at 3, 6, 9 and 12 s")
		assert.Len(t, every10.take(), 2, "resynced once, at the first check after 10 s")
		assert.Empty(t, never.take())

		// After start, a shorter period is raised to the check period.
		late := &siRecorder{}
		_, err = inf.AddEventHandlerWithResyncPeriod(late, time.Second)
		require.NoError(t, err)
		synctest.Wait()
		late.take()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		assert.Empty(t, late.take(), "not due at 15 s: its period was raised to 3 s at 12.001 s")
		time.Sleep(3 * time.Second)
		synctest.Wait()
		assert.Len(t, late.take(), 2, "due at the 18 s check")
	})
}

func TestSharedInformerNoResyncWhenInformerPeriodZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf := siSetup(SharedIndexInformerOptions{})
		rec := &siRecorder{}
		_, err := inf.AddEventHandlerWithResyncPeriod(rec, time.Second)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		rec.take()
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Empty(t, rec.take(), "an informer created with resync 0 never resyncs")
	})
}

func TestSharedInformerUnchangedRVIsSync(t *testing.T) {
	// A relist delivers unchanged objects as updates with the same resource
	// version: they are sync notifications, which only handlers marked by
	// the last resync check receive.
	synctest.Test(t, func(t *testing.T) {
		src, inf := siSetup(SharedIndexInformerOptions{ResyncPeriod: time.Hour})
		syncing, notSyncing := &siRecorder{}, &siRecorder{}
		_, err := inf.AddEventHandler(syncing)
		require.NoError(t, err)
		_, err = inf.AddEventHandlerWithResyncPeriod(notSyncing, 2*time.Hour)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		time.Sleep(time.Hour + time.Millisecond) // first check: only "syncing" is due
		synctest.Wait()
		assert.Len(t, syncing.take(), 4)
		assert.Len(t, notSyncing.take(), 2, "initial adds only")

		src.SendWatchError(apierrors.NewResourceExpired("gone"))
		time.Sleep(2 * time.Second) // the relist comes after the reflector's backoff
		synctest.Wait()
		assert.Equal(t, []string{"update ns/a@1 -> ns/a@1", "update ns/b@2 -> ns/b@2"}, syncing.take())
		assert.Empty(t, notSyncing.take(), "the marks persist until the next check")
	})
}

func TestSharedInformerAddIndexersWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, inf := siSetup(SharedIndexInformerOptions{})
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		require.NoError(t, inf.AddIndexers(Indexers{"byLabel": func(o any) ([]string, error) {
			return []string{o.(*corev1.Pod).Labels["l"]}, nil
		}}))
		src.Modify(siPod("a", "x"))
		synctest.Wait()
		keys, err := inf.GetIndexer().IndexKeys("byLabel", "x")
		require.NoError(t, err)
		assert.Equal(t, []string{"ns/a"}, keys)
		keys, err = inf.GetIndexer().IndexKeys("byLabel", "")
		require.NoError(t, err)
		assert.Equal(t, []string{"ns/b"}, keys, "existing objects were indexed")
	})
}

func TestSharedInformerBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf := siSetup(SharedIndexInformerOptions{})
		_, err := inf.AddEventHandler(nil)
		assert.ErrorIs(t, err, errNilHandler)
		var nilFuncs *ResourceEventHandlerFuncs
		_, err = inf.AddEventHandler(nilFuncs)
		assert.ErrorIs(t, err, errNilHandler)

		noSource := NewSharedIndexInformer(nil, &corev1.Pod{}, 0, nil)
		_, err = noSource.AddEventHandler(&siRecorder{})
		assert.ErrorIs(t, err, errNilListerWatcher)
		noSource.Run(make(chan struct{})) // returns at once
		assert.False(t, noSource.HasSynced())

		// A failing index function never panics: the object is refused and
		// the rest of the cache stays consistent.
		src, inf := siSetup(SharedIndexInformerOptions{Indexers: Indexers{"fails": func(o any) ([]string, error) {
			if o.(*corev1.Pod).Name == "bad" {
				return nil, errors.New("cannot index")
			}
			return []string{"ok"}, nil
		}}})
		rec := &siRecorder{}
		_, err = inf.AddEventHandler(rec)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		src.Add(siPod("bad"))
		src.Add(siPod("good"))
		synctest.Wait()
		assert.Equal(t, []string{"ns/a", "ns/b", "ns/good"}, storeSorted(inf.GetStore().ListKeys()))
		keys, err := inf.GetIndexer().IndexKeys("fails", "ok")
		require.NoError(t, err)
		assert.Equal(t, []string{"ns/a", "ns/b", "ns/good"}, keys)
		assert.Equal(t, []string{"add ns/a@1 initial=true", "add ns/b@2 initial=true", "add ns/good@4 initial=false"}, rec.take(),
			"the refused object is not announced")
	})
}

func TestTypedSharedIndexInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, untyped := siSetup(SharedIndexInformerOptions{})
		inf := NewTypedSharedIndexInformer[*corev1.Pod](untyped)
		var got []string
		_, err := inf.AddTypedEventHandler(TypedResourceEventHandlerFuncs[*corev1.Pod]{
			AddFunc:    func(p *corev1.Pod) { got = append(got, "add "+p.Name) },
			DeleteFunc: func(d DeletedObject[*corev1.Pod]) { got = append(got, "delete "+d.GetKey()) },
		})
		require.NoError(t, err)
		_, err = inf.AddTypedEventHandler(TypedResourceEventHandlerFuncs[*corev1.Pod]{}, HandlerOptions{}, HandlerOptions{})
		assert.ErrorContains(t, err, "at most one HandlerOptions")
		require.NoError(t, inf.AddTypedIndexers(TypedIndexers[*corev1.Pod]{"name": func(p *corev1.Pod) ([]string, error) {
			return []string{p.Name}, nil
		}}))
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		src.Delete(siPod("a"))
		synctest.Wait()
		assert.Equal(t, []string{"add a", "add b", "delete ns/a"}, got)
		pods, err := inf.GetTypedIndexer().ByTypedIndex("name", "b")
		require.NoError(t, err)
		require.Len(t, pods, 1)
		assert.Equal(t, "b", pods[0].Name)
	})
}
