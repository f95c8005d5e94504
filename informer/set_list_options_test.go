package informer

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/internal/fakelw"
)

// switchFixture is an informer on a selServer with pods a/p1 (red), a/p2
// (blue), b/p3 (red) and a recorder, synced.
func switchFixture(t *testing.T, inOrder bool, scope ListScope) (*selServer, *sharedIndexInformer, *siRecorder, ResourceEventHandlerRegistration, func()) {
	t.Helper()
	srv := newSelServer(false)
	srv.put("a", "p1", map[string]string{"l": "red"})
	srv.put("a", "p2", map[string]string{"l": "blue"})
	srv.put("b", "p3", map[string]string{"l": "red"})
	inf := newSharedIndexInformer(srv, &corev1.Pod{}, SharedIndexInformerOptions{InOrder: queueOption(inOrder), ListScope: scope}, nil)
	rec := &siRecorder{}
	reg, err := inf.AddEventHandler(rec)
	require.NoError(t, err)
	stop := siRun(t, inf)
	synctest.Wait()
	require.True(t, inf.HasSynced())
	return srv, inf, rec, reg, stop
}

func label(sel string) ListScope { return labelScope(sel) }

// TestSetListOptionsDelivers checks the exact calls of a switch: the
// object leaving the selection is a tombstone with its last state, the one
// entering is an add, the one in both and unchanged is not delivered, the
// one in both that changed is an update; the switch lists at once, without
// backoff, and HasSynced stays true throughout.
func TestSetListOptionsDelivers(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		srv, inf, rec, _, stop := switchFixture(t, inOrder, label("l=red"))
		defer stop()
		require.ElementsMatch(t, []string{"add a/p1@1[red] initial=true", "add b/p3@3[red] initial=true"}, rec.take())

		// p1 changes while the watch runs; then the switch to l in
		// (red,blue) in namespace a: p3 leaves, p2 enters, p1 stays.
		srv.put("a", "p1", map[string]string{"l": "red", "x": "y"})
		synctest.Wait()
		require.Equal(t, []string{"update a/p1@1[red] -> a/p1@4[red]"}, rec.take())
		lists := srv.lists
		start := time.Now()
		require.NoError(t, inf.SetListOptions(context.Background(), labelScope("l in (red,blue)", "a")))
		require.True(t, inf.HasSynced())
		synctest.Wait()
		require.Equal(t, start, time.Now(), "the relist starts without backoff")
		require.Equal(t, lists+2, srv.lists, "one probe, one relist")
		require.Equal(t, 1, srv.openWatches(), "the old watch was stopped")
		require.ElementsMatch(t, []string{
			"delete tombstone(b/p3,b/p3@3[red])",
			"add a/p2@2[blue] initial=false",
		}, rec.take())
		require.True(t, inf.HasSynced())
		require.False(t, inf.SyncStatus().Switching)
		require.ElementsMatch(t, []string{"a/p1", "a/p2"}, inf.GetStore().ListKeys())

		// The new watch carries the new options.
		srv.put("a", "p2", map[string]string{"l": "green"})
		srv.put("b", "p3", map[string]string{"l": "blue"})
		synctest.Wait()
		require.Equal(t, []string{"delete a/p2@5[green]"}, rec.take())
	})
}

// TestSetListOptionsChangedObjectIsUpdated checks that an object in both
// selections that changed between the last event the informer saw and the
// relist is delivered as an update.
func TestSetListOptionsChangedObjectIsUpdated(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		srv, inf, rec, _, stop := switchFixture(t, inOrder, label("l=red"))
		defer stop()
		rec.take()
		// A change the watch does not see (not in the history), which
		// the relist does.
		srv.mu.Lock()
		srv.objs["a/p1"] = srv.objs["a/p1"].DeepCopy()
		srv.rv++
		srv.objs["a/p1"].ResourceVersion = "99"
		srv.mu.Unlock()
		require.NoError(t, inf.SetListOptions(context.Background(), label("l in (red)")))
		synctest.Wait()
		require.Equal(t, []string{"update a/p1@1[red] -> a/p1@99[red]"}, rec.take())
	})
}

// TestSetListOptionsSwitchingStatus checks SyncStatus during a switch that
// cannot list: Switching is set, HasSynced stays true, and the cache keeps
// the old selection; once the list succeeds the switch completes.
func TestSetListOptionsSwitchingStatus(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		srv, inf, rec, reg, stop := switchFixture(t, inOrder, label("l=red"))
		defer stop()
		rec.take()
		probed := false // guarded by srv.mu, under which refuse runs
		srv.setRefuse(func(o metav1.ListOptions) error {
			if o.LabelSelector == "l=blue" && o.Watch == false && o.Limit == 1 && !probed {
				probed = true
				return nil // the probe passes
			}
			if o.LabelSelector == "l=blue" {
				return apierrors.NewServiceUnavailable("down")
			}
			return nil
		})
		start := time.Now()
		require.NoError(t, inf.SetListOptions(context.Background(), label("l=blue")))
		synctest.Wait()
		st := inf.SyncStatus()
		require.True(t, st.Synced())
		require.True(t, st.Switching)
		require.Equal(t, start, st.SwitchingSince)
		require.Contains(t, st.String(), "switching to new list options")
		require.Positive(t, st.Attempts)
		require.True(t, apierrors.IsServiceUnavailable(st.LastError), "%v", st.LastError)
		require.Contains(t, st.String(), "failed attempts")
		require.True(t, inf.HasSynced())
		require.True(t, reg.HasSynced(), "a registration stays synced too")
		require.ElementsMatch(t, []string{"a/p1", "b/p3"}, inf.GetStore().ListKeys(), "the old selection is served")
		require.Empty(t, rec.take())

		srv.setRefuse(nil)
		time.Sleep(time.Minute) // past the backoff
		synctest.Wait()
		require.False(t, inf.SyncStatus().Switching)
		require.ElementsMatch(t, []string{"a/p2"}, inf.GetStore().ListKeys())
		require.ElementsMatch(t, []string{
			"delete tombstone(a/p1,a/p1@1[red])",
			"delete tombstone(b/p3,b/p3@3[red])",
			"add a/p2@2[blue] initial=false",
		}, rec.take())
	})
}

// TestSetListOptionsBadInput checks that a scope that cannot be used is
// refused with a clear error and changes nothing: no relist, the same
// selection afterwards.
func TestSetListOptionsBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, inf, rec, _, stop := switchFixture(t, true, label("l=red"))
		defer stop()
		rec.take()
		lists, watches := srv.lists, srv.watchers
		cases := map[string]ListScope{
			"label selector":     label("l in (red"),
			"field selector":     {Tweak: func(o *metav1.ListOptions) { o.FieldSelector = "a=b=c" }},
			"namespace name":     {Namespaces: []string{"Not_A_Namespace"}},
			"empty namespace":    {Namespaces: []string{""}},
			"refused by server":  {Tweak: func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName=n" }},
			"namespace is field": {Namespaces: []string{"a"}, Tweak: func(o *metav1.ListOptions) { o.FieldSelector = "status.phase=x" }},
		}
		for name, scope := range cases {
			err := inf.SetListOptions(context.Background(), scope)
			require.Error(t, err, name)
			if name == "refused by server" || name == "namespace is field" {
				require.True(t, apierrors.IsBadRequest(err), "%s: %v", name, err)
			} else {
				require.ErrorIs(t, err, ErrInvalidListScope, name)
			}
		}
		synctest.Wait()
		require.Equal(t, lists, srv.lists, "no relist (refused probes are not counted)")
		require.Equal(t, watches, srv.watchers, "the watch was not ended")
		require.Empty(t, rec.take())
		require.False(t, inf.SyncStatus().Switching)
		srv.put("a", "p2", map[string]string{"l": "red"})
		synctest.Wait()
		require.Equal(t, []string{"add a/p2@4[red] initial=false"}, rec.take(), "the old options still apply")
	})
}

// TestSetListOptionsClusterScoped checks that namespaces are refused for a
// cluster-scoped resource, told by the probe's object or by the cache.
func TestSetListOptionsClusterScoped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Namespace{})
		src.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "one"}})
		inf := newSharedIndexInformer(src, &corev1.Namespace{}, SharedIndexInformerOptions{}, nil)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		err := inf.SetListOptions(context.Background(), ListScope{Namespaces: []string{"a", "b"}})
		require.ErrorIs(t, err, ErrInvalidListScope)
		require.Contains(t, err.Error(), "cluster-scoped")
		require.NoError(t, inf.SetListOptions(context.Background(), ListScope{}), "no namespaces is fine")
	})
}

// TestSetListOptionsEmptyClusterScoped: with no object to tell, several
// namespaces on a cluster-scoped resource are refused because the server
// refuses to select by namespace, as kube-apiserver does for namespaces and
// nodes; nothing changes. A namespaced resource with no object passes.
func TestSetListOptionsEmptyClusterScoped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, clusterScoped := range []bool{true, false} {
			var lists []string
			lw := noWatchList(&ListWatch{
				ListWithContextFunc: func(_ context.Context, o metav1.ListOptions) (runtime.Object, error) {
					lists = append(lists, o.FieldSelector)
					if clusterScoped && strings.Contains(o.FieldSelector, "metadata.namespace") {
						return nil, apierrors.NewBadRequest("field label not supported: metadata.namespace")
					}
					return &corev1.NamespaceList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
				},
				WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
			})
			inf := newSharedIndexInformer(lw, &corev1.Namespace{}, SharedIndexInformerOptions{}, nil)
			err := inf.SetListOptions(context.Background(), ListScope{Namespaces: []string{"b", "a"}})
			if !clusterScoped {
				require.NoError(t, err)
				continue
			}
			require.ErrorIs(t, err, ErrInvalidListScope)
			require.True(t, apierrors.IsBadRequest(err), "the server's error is kept: %v", err)
			require.Equal(t, []string{"", "metadata.namespace=a"}, lists, "a probe, then one selecting the first namespace")
			stop := siRun(t, inf)
			synctest.Wait()
			require.Equal(t, "", lists[len(lists)-1], "nothing changed: the informer lists every namespace")
			stop()
		}
	})
}

// TestSetListOptionsStoppedAndBeforeRun checks SetListOptions before Run
// (the first list uses the scope, nothing is delivered twice) and after
// the informer stopped (an error).
func TestSetListOptionsStoppedAndBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newSelServer(false)
		srv.put("a", "p1", map[string]string{"l": "red"})
		srv.put("a", "p2", map[string]string{"l": "blue"})
		inf := newSharedIndexInformer(srv, &corev1.Pod{}, SharedIndexInformerOptions{}, nil)
		require.NoError(t, inf.SetListOptions(context.Background(), label("l=blue")))
		rec := &siRecorder{}
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		stop := siRun(t, inf)
		synctest.Wait()
		require.Equal(t, []string{"add a/p2@2[blue] initial=true"}, rec.take())
		require.Equal(t, 2, srv.lists, "the probe and the first list")
		stop()
		require.True(t, errors.Is(inf.SetListOptions(context.Background(), ListScope{}), errInformerStopped))
	})
}

// TestSetListOptionsNamespacesOnClient checks several namespaces, which
// are filtered on the client, with a source that cannot select (fakelw),
// over a list and over a watch-list stream, and the watch that follows.
func TestSetListOptionsNamespacesOnClient(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		t.Run(map[bool]string{false: "list", true: "watchlist"}[watchList], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := fakelw.New(&corev1.Pod{})
				src.SetWatchListSupported(watchList)
				for _, ns := range []string{"a", "b", "c"} {
					src.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p"}})
				}
				inf := newSharedIndexInformer(src, &corev1.Pod{}, SharedIndexInformerOptions{}, nil)
				rec := &siRecorder{}
				_, err := inf.AddEventHandler(rec)
				require.NoError(t, err)
				stop := siRun(t, inf)
				defer stop()
				synctest.Wait()
				require.Len(t, rec.take(), 3)
				require.NoError(t, inf.SetListOptions(context.Background(), ListScope{Namespaces: []string{"a", "c"}}))
				synctest.Wait()
				require.Equal(t, []string{"delete tombstone(b/p,b/p@2)"}, rec.take())
				require.ElementsMatch(t, []string{"a/p", "c/p"}, inf.GetStore().ListKeys())
				src.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "q"}})
				src.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "c", Name: "q"}})
				synctest.Wait()
				require.Equal(t, []string{"add c/q@5 initial=false"}, rec.take())
				require.NoError(t, inf.SetListOptions(context.Background(), ListScope{}))
				synctest.Wait()
				require.ElementsMatch(t, []string{"add b/p@2 initial=false", "add b/q@4 initial=false"}, rec.take())
			})
		})
	}
}

// TestSetListOptionsStoreIsOldOrNew reads the cache on every handler call
// during switches back and forth between two selections that share
// objects, with the in-order queue: every read is the old selection or
// the new one, never a mix.
func TestSetListOptionsStoreIsOldOrNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newSelServer(false)
		for i, l := range []string{"x", "x", "y", "y", "xy", "xy"} {
			srv.put("a", string(rune('0'+i)), map[string]string{"x": boolLabel(l, 'x'), "y": boolLabel(l, 'y')})
		}
		inf := newSharedIndexInformer(srv, &corev1.Pod{}, SharedIndexInformerOptions{}, nil)
		onlyX, onlyY := []string{"a/0", "a/1", "a/4", "a/5"}, []string{"a/2", "a/3", "a/4", "a/5"}
		var bad []string
		look := func() {
			keys := inf.GetStore().ListKeys()
			if !sameSet(keys, onlyX) && !sameSet(keys, onlyY) {
				bad = append(bad, stringsJoin(keys))
			}
		}
		_, err := inf.AddEventHandler(ResourceEventHandlerFuncs{
			AddFunc:    func(any) { look() },
			UpdateFunc: func(any, any) { look() },
			DeleteFunc: func(any) { look() },
		})
		require.NoError(t, err)
		require.NoError(t, inf.SetListOptions(context.Background(), label("x=true")))
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		for i := range 6 {
			require.NoError(t, inf.SetListOptions(context.Background(), label(map[bool]string{false: "y=true", true: "x=true"}[i%2 == 1])))
			synctest.Wait()
		}
		require.Empty(t, bad)
	})
}

func boolLabel(l string, c rune) string {
	for _, r := range l {
		if r == c {
			return "true"
		}
	}
	return "false"
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, s := range a {
		m[s] = true
	}
	for _, s := range b {
		if !m[s] {
			return false
		}
	}
	return true
}

func stringsJoin(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

// TestSetListOptionsThroughTypedInformer reaches SetListOptions through a
// typed informer's FanoutInformer.
func TestSetListOptionsThroughTypedInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf, rec, _, stop := switchFixture(t, true, label("l=red"))
		defer stop()
		rec.take()
		typed, ok := NewTypedSharedIndexInformer[*corev1.Pod](inf).(FanoutInformer)
		require.True(t, ok)
		require.NoError(t, typed.SetListOptions(context.Background(), label("l=blue")))
		synctest.Wait()
		require.ElementsMatch(t, []string{
			"delete tombstone(a/p1,a/p1@1[red])",
			"delete tombstone(b/p3,b/p3@3[red])",
			"add a/p2@2[blue] initial=false",
		}, rec.take())
		require.Equal(t, map[string]string{"a/p2": "2"}, storeView(inf.GetStore()))
	})
}

// TestSetListOptionsDuringFirstList switches while the first list is in
// progress: that list is applied with the options it was made with, the
// watch that would follow it never starts, and the relist with the new
// options follows at once.
func TestSetListOptionsDuringFirstList(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		srv := newSelServer(false)
		srv.put("a", "p1", map[string]string{"l": "red"})
		srv.put("a", "p2", map[string]string{"l": "blue"})
		inf := newSharedIndexInformer(srv, &corev1.Pod{}, SharedIndexInformerOptions{InOrder: queueOption(inOrder), ListScope: label("l=red")}, nil)
		var switched atomic.Bool
		srv.onList = func() {
			if !switched.Swap(true) { // the first list; the check's list comes here too
				require.NoError(t, inf.SetListOptions(context.Background(), label("l=blue")))
			}
		}
		rec := &siRecorder{}
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		calls := rec.take()
		require.Len(t, calls, 3)
		require.Equal(t, "add a/p1@1[red] initial=true", calls[0])
		// The order of different keys is the queue's (DeltaFIFO keeps a
		// key's place).
		require.ElementsMatch(t, []string{
			"delete tombstone(a/p1,a/p1@1[red])",
			"add a/p2@2[blue] initial=false",
		}, calls[1:])
		require.Equal(t, 1, srv.watchers, "no watch with the old options")
		require.True(t, inf.HasSynced())
		require.False(t, inf.SyncStatus().Switching)
	})
}
