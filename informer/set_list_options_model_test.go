package informer

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// streamChecker is a handler that keeps the view its calls build and
// records every break of the stream's rules: an add of a key it holds, an
// update or delete of one it does not, an update whose old object is not
// the last one it was given or whose resourceVersion did not change, and a
// resourceVersion older than one already seen for the key.
type streamChecker struct {
	name string
	mu   sync.Mutex
	view map[string]string // key -> resourceVersion
	last map[string]int    // key -> newest resourceVersion seen
	errs []string
	// updates counts the updates delivered.
	updates int
}

func newStreamChecker(name string) *streamChecker {
	return &streamChecker{name: name, view: map[string]string{}, last: map[string]int{}}
}

func (c *streamChecker) fail(format string, args ...any) {
	c.errs = append(c.errs, c.name+": "+fmt.Sprintf(format, args...))
}

func (c *streamChecker) seen(key, rv string) {
	n, _ := strconv.Atoi(rv)
	if n < c.last[key] {
		c.fail("%s at rv %d after rv %d", key, n, c.last[key])
	}
	c.last[key] = n
}

func (c *streamChecker) OnAdd(obj any, _ bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, rv := keyRV(obj)
	if _, ok := c.view[key]; ok {
		c.fail("add of %s, which it holds", key)
	}
	c.seen(key, rv)
	c.view[key] = rv
}

func (c *streamChecker) OnUpdate(oldObj, newObj any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates++
	key, rv := keyRV(newObj)
	_, oldRV := keyRV(oldObj)
	held, ok := c.view[key]
	switch {
	case !ok:
		c.fail("update of %s, which it does not hold", key)
	case held != oldRV:
		c.fail("update of %s from rv %s, but it holds rv %s", key, oldRV, held)
	case rv == oldRV:
		c.fail("update of %s without change (rv %s)", key, rv)
	}
	c.seen(key, rv)
	c.view[key] = rv
}

func (c *streamChecker) OnDelete(obj any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := obj.(DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	key, rv := keyRV(obj)
	if _, ok := c.view[key]; !ok {
		c.fail("delete of %s, which it does not hold", key)
	}
	c.seen(key, rv)
	delete(c.view, key)
}

func (c *streamChecker) snapshot() (map[string]string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.view), append([]string(nil), c.errs...)
}

func keyRV(obj any) (string, string) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%T>", obj), ""
	}
	return m.GetNamespace() + "/" + m.GetName(), m.GetResourceVersion()
}

// storeView is the informer's cache as key -> resourceVersion.
func storeView(s Store) map[string]string {
	out := map[string]string{}
	for _, obj := range s.List() {
		k, rv := keyRV(obj)
		out[k] = rv
	}
	return out
}

// labelScope selects by label selector, in namespaces.
func labelScope(sel string, namespaces ...string) ListScope {
	sc := ListScope{Namespaces: namespaces}
	if sel != "" {
		sc.Tweak = func(o *metav1.ListOptions) { o.LabelSelector = sel }
	}
	return sc
}

// modelScopes are the scopes the model test switches between.
var modelScopes = []ListScope{
	{},
	labelScope("color=red"),
	labelScope("color in (red,blue)"),
	labelScope("", "a"),
	labelScope("color!=green", "a", "b"),
	{Tweak: func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name!=p1" }},
	labelScope("color=blue", "c", "b"),
}

// expected is what the server holds that scope selects.
func (s *selServer) expected(t *testing.T, scope ListScope) map[string]string {
	sc, err := newListScope(scope)
	require.NoError(t, err)
	var options metav1.ListOptions
	sc.apply(&options)
	sel, err := s.selectorOf(options)
	require.NoError(t, err)
	out := s.matching(sel)
	for k := range out {
		ns, _, _ := splitKey(k)
		if sc.filtersOnClient() {
			if _, ok := sc.namespaces[ns]; !ok {
				delete(out, k)
			}
		}
	}
	return out
}

func splitKey(k string) (string, string, bool) {
	for i := range k {
		if k[i] == '/' {
			return k[:i], k[i+1:], true
		}
	}
	return "", k, false
}

var (
	modelNamespaces = []string{"a", "b", "c"}
	modelColors     = []string{"red", "blue", "green"}
)

// TestSetListOptionsModel runs random switches of scope under random churn
// against a fake server that selects as the API server does, in every
// queue and fill mode, and checks after each quiet point that every
// handler's view, and the cache, are the server's objects the current
// scope selects, and that no handler's stream ever broke its rules (see
// streamChecker): nothing lost, duplicated, out of order or unchanged.
func TestSetListOptionsModel(t *testing.T) {
	modes := []struct {
		name               string
		inOrder, watchList bool
	}{
		{"RealFIFO/list", true, false},
		{"RealFIFO/watchlist", true, true},
		{"DeltaFIFO/list", false, false},
		{"DeltaFIFO/watchlist", false, true},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			for seed := range uint64(25) {
				synctest.Test(t, func(t *testing.T) { runSelectorModel(t, seed, mode.inOrder, mode.watchList) })
				if t.Failed() {
					t.Fatalf("seed %d", seed)
				}
			}
		})
	}
}

func runSelectorModel(t *testing.T, seed uint64, inOrder, watchList bool) {
	rng := rand.New(rand.NewPCG(seed, 27))
	srv := newSelServer(watchList)
	pods := 14
	churn := func() {
		name := fmt.Sprintf("p%d", rng.IntN(pods))
		ns := modelNamespaces[rng.IntN(len(modelNamespaces))]
		if rng.IntN(5) == 0 {
			srv.put(ns, name, nil)
			return
		}
		srv.put(ns, name, map[string]string{"color": modelColors[rng.IntN(len(modelColors))]})
	}
	for range 2 * pods {
		churn()
	}
	scope := modelScopes[rng.IntN(len(modelScopes))]
	inf := newSharedIndexInformer(srv, &corev1.Pod{}, SharedIndexInformerOptions{InOrder: queueOption(inOrder), ListScope: scope}, nil)
	checkers := []*streamChecker{newStreamChecker("default"), newStreamChecker("workers")}
	_, err := inf.AddEventHandler(checkers[0])
	require.NoError(t, err)
	_, err = inf.AddEventHandlerWithOptions(checkers[1], HandlerOptions{Workers: 3})
	require.NoError(t, err)
	stop := siRun(t, inf)
	defer stop()

	check := func(step int) {
		t.Helper()
		synctest.Wait()
		want := srv.expected(t, scope)
		require.Equal(t, want, storeView(inf.GetStore()), "seed %d step %d: cache", seed, step)
		for _, c := range checkers {
			view, errs := c.snapshot()
			require.Empty(t, errs, "seed %d step %d", seed, step)
			require.Equal(t, want, view, "seed %d step %d: handler %s", seed, step, c.name)
		}
		st := inf.SyncStatus()
		require.True(t, st.Synced())
		require.False(t, st.Switching, "seed %d step %d: %v", seed, step, st)
	}
	check(-1)
	for step := range 60 {
		switch r := rng.IntN(12); {
		case r < 7:
			churn()
		case r < 10:
			scope = modelScopes[rng.IntN(len(modelScopes))]
			require.NoError(t, inf.SetListOptions(context.Background(), scope))
			require.True(t, inf.HasSynced(), "HasSynced stays true during a switch")
		case r < 11 && len(checkers) < 4:
			c := newStreamChecker(fmt.Sprintf("late%d", step))
			_, err := inf.AddEventHandler(c)
			require.NoError(t, err)
			checkers = append(checkers, c)
		default:
			check(step)
		}
	}
	check(60)
}
