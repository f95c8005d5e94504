package informer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/internal/streamcheck"
)

// storeView is the informer's cache as key -> resourceVersion.
func storeView(s Store) map[string]string {
	out := map[string]string{}
	for _, obj := range s.List() {
		k, rv := streamcheck.KeyRV(obj)
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
// streamcheck.Checker): nothing lost, duplicated, out of order or unchanged.
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
	checkers := []*streamcheck.Checker{streamcheck.New("default"), streamcheck.New("workers")}
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
			view, errs := c.State()
			require.Empty(t, errs, "seed %d step %d", seed, step)
			require.Equal(t, want, view, "seed %d step %d: handler %s", seed, step, c.Name())
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
			c := streamcheck.New(fmt.Sprintf("late%d", step))
			_, err := inf.AddEventHandler(c)
			require.NoError(t, err)
			checkers = append(checkers, c)
		default:
			check(step)
		}
	}
	check(60)
}
