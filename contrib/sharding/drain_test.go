package sharding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/informer"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
)

// eventLog is the order in which things happened across replicas.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *eventLog) index(e string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Index(l.events, e)
}

// gatedHandler logs every call and, while gated, blocks each call until
// the gate opens.
type gatedHandler struct {
	log   *eventLog
	who   string
	gate  atomic.Pointer[chan struct{}]
	calls atomic.Int64
}

func (h *gatedHandler) wait() {
	h.calls.Add(1)
	if g := h.gate.Load(); g != nil {
		<-*g
	}
}

func (h *gatedHandler) OnAdd(obj interface{}, _ bool) {
	h.wait()
	cm := obj.(*corev1.ConfigMap)
	h.log.add("%s set %s %s", h.who, cm.Name, cm.ResourceVersion)
}

func (h *gatedHandler) OnUpdate(_, obj interface{}) { h.OnAdd(obj, false) }

func (h *gatedHandler) OnDelete(obj interface{}) {
	h.wait()
	if d, ok := obj.(informer.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	h.log.add("%s delete %s", h.who, obj.(*corev1.ConfigMap).Name)
}

// TestDrainSlowHandler: replica a's handler is stuck with a backlog of
// updates when b joins. a keeps the moved ranges' claims while its handler
// is behind, b does not list them; once the handler catches up, it has been
// given the final state of every moved object, then its delete, before the
// claim is released and before b lists. With one worker and with keyed
// workers.
func TestDrainSlowHandler(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testDrainSlowHandler(t, workers) })
		})
	}
}

func testDrainSlowHandler(t *testing.T, workers int) {
	ctx := t.Context()
	const ranges = 8
	rng := rand.New(rand.NewPCG(5, 6))
	src := newObjectSource(t, true, ranges)
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	log := &eventLog{}
	rv := 0
	nextRV := func() string { rv++; return strconv.Itoa(rv) }
	for i := range 40 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), UID: types.UID(leasetest.RandomUID(rng)), ResourceVersion: nextRV()}}
		_, err := src.cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	newReplica := func(id string, h informer.ResourceEventHandler, lw informer.ListerWatcher) (*ShardedInformer, *ring.Coordinator) {
		s := NewShardedInformer(lw, &corev1.ConfigMap{}, Options{Clock: clk})
		_, err := s.AddEventHandlerWithOptions(h, informer.HandlerOptions{Workers: workers})
		require.NoError(t, err)
		c, err := ring.NewCoordinator(testConfig(api, clk, id, ranges), s, ring.CoordinatorOptions{})
		require.NoError(t, err)
		return s, c
	}
	ha := &gatedHandler{log: log, who: "a"}
	a, ac := newReplica("a", ha, src.lw())
	inner := informer.ToListerWatcherWithContext(src.lw())
	bLW := &informer.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			log.add("b list")
			return inner.ListWithContext(ctx, o)
		},
		WatchFuncWithContext: inner.WatchWithContext,
	}
	b, bc := newReplica("b", &gatedHandler{log: log, who: "b"}, bLW)

	ac.Round(ctx, false)
	synctest.Wait()
	require.Len(t, a.OwnedRanges(), ranges)
	require.True(t, a.HasSynced())

	// a's handler gets stuck; every object is updated twice.
	gate := make(chan struct{})
	ha.gate.Store(&gate)
	list, err := src.cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	final := map[string]string{}
	for round := range 2 {
		for i := range list.Items {
			cm := &list.Items[i]
			cm.Data = map[string]string{"round": strconv.Itoa(round)}
			cm.ResourceVersion = nextRV()
			_, err := src.cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
			require.NoError(t, err)
			final[cm.Name] = cm.ResourceVersion
		}
	}
	synctest.Wait()

	// b joins; a hands over b's ranges but its handler is behind.
	bc.Round(ctx, false)
	synctest.Wait()
	for range 3 {
		ac.Round(ctx, false)
		synctest.Wait()
		bc.Round(ctx, false)
		synctest.Wait()
		clk.Step(2 * time.Second)
	}
	moved := ring.Owned("b", []string{"a", "b"}, ranges)
	require.NotEmpty(t, moved)
	assert.Len(t, a.OwnedRanges(), ranges-len(moved), "a stopped delivering the moved ranges")
	assert.Empty(t, b.OwnedRanges(), "b holds nothing while a drains")
	assert.Equal(t, -1, log.index("b list"), "b did not list while a drains")
	for _, i := range moved {
		assert.True(t, ac.Claims().Held(i), "a still holds range %d", i)
	}

	// The handler catches up; then a releases and b lists.
	ha.gate.Store(nil)
	close(gate)
	synctest.Wait()
	for range 2 {
		ac.Round(ctx, false)
		synctest.Wait()
		bc.Round(ctx, false)
		synctest.Wait()
		clk.Step(2 * time.Second)
	}
	require.Len(t, b.OwnedRanges(), len(moved))
	firstList := log.index("b list")
	require.NotEqual(t, -1, firstList)
	movedNames := storeNames(b.GetStore())
	require.NotEmpty(t, movedNames)
	for _, name := range movedNames {
		set := log.index(fmt.Sprintf("a set %s %s", name, final[name]))
		del := log.index("a delete " + name)
		assert.NotEqual(t, -1, set, "a handled the final state of %s", name)
		assert.Less(t, set, del, "a handled %s's final state before its delete", name)
		assert.Less(t, del, firstList, "a's delete of %s came before b listed", name)
	}

	for _, r := range b.OwnedRanges() {
		b.StopRange(ctx, r, false)
	}
	for _, r := range a.OwnedRanges() {
		a.StopRange(ctx, r, false)
	}
	a.Wait()
	b.Wait()
}

// TestDrainTimeout: a handler that never catches up holds the handover
// for DrainTimeout only; its pending notifications are dropped.
func TestDrainTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(7, 8))
		src := newObjectSource(t, true, 1)
		clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
		createNumbered(t, src, rng, 5)
		log := &eventLog{}
		h := &gatedHandler{log: log, who: "a"}
		gate := make(chan struct{})
		h.gate.Store(&gate)
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{Clock: clk, DrainTimeout: 3 * time.Second})
		_, err := s.AddEventHandler(h)
		require.NoError(t, err)
		rs, _ := ring.Ranges(1)
		s.StartRange(ctx, rs[0])
		synctest.Wait()
		require.Equal(t, int64(1), h.calls.Load(), "stuck in the first add")

		var returned atomic.Bool
		go func() {
			s.StopRange(ctx, rs[0], true)
			returned.Store(true)
		}()
		synctest.Wait()
		clk.Step(2 * time.Second)
		synctest.Wait()
		assert.False(t, returned.Load(), "waits within the timeout")
		clk.Step(time.Second)
		synctest.Wait()
		assert.False(t, returned.Load(), "the call in progress is still waited for")
		close(gate)
		synctest.Wait()
		assert.True(t, returned.Load())
		// The first add, then the deletes (5 tombstones): the 4 pending
		// adds were dropped.
		assert.Equal(t, int64(1+5), h.calls.Load())
		s.Wait()
	})
}

// TestForcedStopDeletesWhatTheHandlerWasTold: a forced stop drops what is
// pending for the range, deletes included, so the range's deletes must
// cover every object the handler was told of, not only those the range's
// store still holds: here the handler is stuck in the add of an object
// deleted meanwhile (its delete pending), and after the stop it must have
// been told the object is gone.
func TestForcedStopDeletesWhatTheHandlerWasTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(9, 10))
		src := newObjectSource(t, true, 1)
		createNumbered(t, src, rng, 3)
		log := &eventLog{}
		h := &gatedHandler{log: log, who: "a"}
		gate := make(chan struct{})
		h.gate.Store(&gate)
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
		_, err := s.AddEventHandler(h)
		require.NoError(t, err)
		rs, _ := ring.Ranges(1)
		s.StartRange(ctx, rs[0])
		synctest.Wait()
		require.Equal(t, int64(1), h.calls.Load(), "stuck in the first add")

		for i := range 3 {
			require.NoError(t, src.cs.CoreV1().ConfigMaps("default").Delete(ctx, fmt.Sprintf("cm-%d", i), metav1.DeleteOptions{}))
		}
		synctest.Wait()
		require.Empty(t, s.GetStore().List(), "the range's store saw the deletes")
		s.StopRange(ctx, rs[0], false)
		close(gate)
		synctest.Wait()
		s.Wait()

		told := map[string]bool{}
		log.mu.Lock()
		for _, e := range log.events {
			var who, name, rv string
			if n, _ := fmt.Sscanf(e, "%s set %s %s", &who, &name, &rv); n == 3 {
				told[name] = true
			} else if n, _ := fmt.Sscanf(e, "%s delete %s", &who, &name); n == 2 {
				delete(told, name)
			}
		}
		events := slices.Clone(log.events)
		log.mu.Unlock()
		assert.Empty(t, told, "the handler still believes these exist after the forced stop: %v", events)
	})
}

// turnHandler logs every call once it returns and blocks the first call
// until gate closes, remembering its object.
type turnHandler struct {
	log   *eventLog
	gate  chan struct{}
	first atomic.Pointer[corev1.ConfigMap]
}

func (h *turnHandler) OnAdd(obj interface{}, _ bool) {
	cm := obj.(*corev1.ConfigMap)
	if h.first.CompareAndSwap(nil, cm) {
		<-h.gate
	}
	h.log.add("set %s", cm.Name)
}

func (h *turnHandler) OnUpdate(_, obj interface{}) { h.OnAdd(obj, false) }

func (h *turnHandler) OnDelete(obj interface{}) {
	if d, ok := obj.(informer.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	h.log.add("delete %s", obj.(*corev1.ConfigMap).Name)
}

// TestForcedStopDropsCallsWaitingForTheirTurn: calls are serialised across
// ranges, so a range's call may wait for another range's call to return.
// A forced stop drops such a waiting call, as it drops what is pending:
// no call for the stopped range starts after StopRange returned, and the
// handler ends up believing none of the range's objects.
func TestForcedStopDropsCallsWaitingForTheirTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(11, 12))
		src := newObjectSource(t, true, 2)
		rs, _ := ring.Ranges(2)
		inRange := map[string]int{}
		for _, cm := range createNumbered(t, src, rng, 20) {
			h, err := HashObject(KeyUID, cm)
			require.NoError(t, err)
			inRange[cm.Name] = RangeIndex(h, 2)
		}
		log := &eventLog{}
		h := &turnHandler{log: log, gate: make(chan struct{})}
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
		_, err := s.AddEventHandler(h)
		require.NoError(t, err)
		s.StartRange(ctx, rs[0])
		s.StartRange(ctx, rs[1])
		synctest.Wait()
		first := h.first.Load()
		require.NotNil(t, first)
		// One range's call runs (blocked); the other range's first call
		// waits for its turn. Stop that other range.
		other := 1 - inRange[first.Name]
		s.StopRange(ctx, rs[other], false)
		const mark = "stopped"
		log.add(mark)
		close(h.gate)
		synctest.Wait()

		log.mu.Lock()
		events := slices.Clone(log.events)
		log.mu.Unlock()
		after := false
		told := map[string]bool{}
		for _, e := range events {
			var name string
			switch {
			case e == mark:
				after = true
			case strings.HasPrefix(e, "set "):
				name = strings.TrimPrefix(e, "set ")
				if inRange[name] == other && after {
					t.Errorf("%s: a call for the stopped range started after StopRange returned", e)
				}
				told[name] = true
			case strings.HasPrefix(e, "delete "):
				delete(told, strings.TrimPrefix(e, "delete "))
			}
		}
		for name := range told {
			assert.NotEqual(t, other, inRange[name], "the handler still believes %s of the stopped range exists", name)
		}
		s.StopRange(ctx, rs[1-other], false)
		synctest.Wait()
		s.Wait()
	})
}

// createNumbered creates ConfigMaps cm-0 to cm-<n-1> in src, with random
// UIDs and resourceVersions 1 to n, and returns them.
func createNumbered(t *testing.T, src *objectSource, rng *rand.Rand, n int) []*corev1.ConfigMap {
	t.Helper()
	out := make([]*corev1.ConfigMap, n)
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), UID: types.UID(leasetest.RandomUID(rng)), ResourceVersion: strconv.Itoa(i + 1)}}
		_, err := src.cs.CoreV1().ConfigMaps("default").Create(t.Context(), cm, metav1.CreateOptions{})
		require.NoError(t, err)
		out[i] = cm
	}
	return out
}
