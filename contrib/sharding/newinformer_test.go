package sharding

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

// TestNewInformerFuncPartitions builds two replicas' ConfigMap informers
// with NewInformerFunc, as controller-runtime's cache does (a client-go
// ListerWatcher, a resync period, client-go index functions), and drives
// them through client-go's interface only: together they serve every
// object once, each only its owned ranges, with the index functions
// applied; when one replica stops, the other serves everything.
func TestNewInformerFuncPartitions(t *testing.T) {
	testNewInformerFuncPartitions(t, false)
}

// TestNewInformerFuncShutdown is TestNewInformerFuncPartitions with the
// first replica stopped by Shutdown, reached through client-go's interface
// with clientgo.FanoutInformer.
func TestNewInformerFuncShutdown(t *testing.T) {
	testNewInformerFuncPartitions(t, true)
}

func testNewInformerFuncPartitions(t *testing.T, shutdown bool) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(31, 32))
		src := newObjectSource(t, true, 8)
		for i := range 120 {
			src.create(t, rng, fmt.Sprintf("cm-%03d", i))
		}
		api := leasetest.NewAPI()
		clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
		type replica struct {
			inf    toolscache.SharedIndexInformer
			reg    toolscache.ResourceEventHandlerRegistration
			cancel context.CancelFunc
			done   chan struct{}
		}
		byParity := toolscache.Indexers{"parity": func(obj any) ([]string, error) {
			return []string{fmt.Sprint(len(obj.(*corev1.ConfigMap).Name) % 2)}, nil
		}}
		start := func(id string) *replica {
			ring := testConfig(api, clk, id, 8)
			inf := NewInformerFunc(Options{Ring: &ring})(src.lw(), &corev1.ConfigMap{}, time.Minute, toolscache.Indexers{})
			_, ok := clientgo.FanoutInformer(inf)
			require.True(t, ok, "a fanout informer behind %T", inf)
			require.NoError(t, inf.AddIndexers(byParity))
			reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(t.Context())
			r := &replica{inf: inf, reg: reg, cancel: cancel, done: make(chan struct{})}
			go func() {
				defer close(r.done)
				inf.RunWithContext(ctx)
			}()
			return r
		}
		names := func(r *replica) []string {
			var out []string
			for _, o := range r.inf.GetIndexer().List() {
				out = append(out, o.(*corev1.ConfigMap).Name)
			}
			slices.Sort(out)
			return out
		}
		list, err := src.cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		var all []string
		for _, cm := range list.Items {
			all = append(all, cm.Name)
		}
		slices.Sort(all)

		a, b := start("a"), start("b")
		settleRing(clk)
		for _, r := range []*replica{a, b} {
			assert.True(t, r.inf.HasSynced())
			assert.True(t, r.reg.HasSynced())
		}
		na := names(a)
		assertPartition(t, all, na, names(b))
		even, err := a.inf.GetIndexer().ByIndex("parity", "0")
		require.NoError(t, err)
		odd, err := a.inf.GetIndexer().ByIndex("parity", "1")
		require.NoError(t, err)
		assert.Equal(t, len(na), len(even)+len(odd), "index functions cover the owned objects")

		leases, err := api.CoordinationV1().Leases("ns").List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		ring := RingFor("ring", &corev1.ConfigMap{})
		for _, l := range leases.Items {
			assert.Equal(t, ring, l.Labels[LabelRing], "lease %s", l.Name)
		}

		if shutdown {
			// Shutdown, its Run context still alive: it leaves the
			// ring as if the context had ended.
			fa, _ := clientgo.FanoutInformer(a.inf)
			require.NoError(t, fa.Shutdown(t.Context()))
		} else {
			a.cancel()
		}
		<-a.done
		settleRing(clk)
		assert.Equal(t, all, names(b), "the survivor serves every object")
		assert.True(t, a.inf.IsStopped())
		a.cancel()
		b.cancel()
		<-b.done
	})
}

// TestRingFor checks that ring names are per type, stable, and tell
// groups apart.
func TestRingFor(t *testing.T) {
	cm := RingFor("ctrl", &corev1.ConfigMap{})
	assert.Regexp(t, `^ctrl-configmap-[0-9a-f]{8}$`, cm)
	assert.Equal(t, cm, RingFor("ctrl", &corev1.ConfigMap{}))
	assert.NotEqual(t, cm, RingFor("ctrl", &corev1.Secret{}))
	u := func(group string) *unstructured.Unstructured {
		o := &unstructured.Unstructured{}
		o.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"})
		return o
	}
	assert.Regexp(t, `^ctrl-widget-[0-9a-f]{8}$`, RingFor("ctrl", u("a.example.com")))
	assert.NotEqual(t, RingFor("ctrl", u("a.example.com")), RingFor("ctrl", u("b.example.com")))
	cmKind := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	ucm := &unstructured.Unstructured{}
	ucm.SetGroupVersionKind(cmKind)
	mcm := &metav1.PartialObjectMetadata{}
	mcm.SetGroupVersionKind(cmKind)
	names := []string{cm, RingFor("ctrl", ucm), RingFor("ctrl", mcm)}
	for _, n := range names {
		assert.Regexp(t, `^ctrl-configmap-[0-9a-f]{8}$`, n)
	}
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(names))), 3, "typed, unstructured and metadata-only rings differ: %v", names)
}

// TestNewTypeInformerOptions checks what one call of NewInformerFunc or
// WithSharding gives its informer: the call's resync period, the call's
// index functions added to the options' own, the ring renamed for the
// type, and the caller's Options left as they were.
func TestNewTypeInformerOptions(t *testing.T) {
	byName := func(obj any) ([]string, error) { return []string{"n"}, nil }
	ring := Config{Ring: "ctrl", Identity: "a"}
	opts := Options{Ring: &ring}
	opts.Informer.Indexers = informer.Indexers{"own": byName}
	opts.Informer.ResyncPeriod = time.Hour
	s := newTypeInformer(nil, &corev1.ConfigMap{}, time.Minute, informer.Indexers{"call": byName}, opts)
	assert.Equal(t, time.Minute, s.opts.Informer.ResyncPeriod)
	assert.ElementsMatch(t, []string{"own", "call"}, slices.Collect(maps.Keys(s.indexers)))
	assert.Equal(t, RingFor("ctrl", &corev1.ConfigMap{}), s.opts.Ring.Ring)
	assert.Equal(t, "ctrl", ring.Ring, "the caller's Config is not renamed")
	assert.Len(t, opts.Informer.Indexers, 1, "the caller's indexers are not extended")
	assert.Nil(t, newTypeInformer(nil, &corev1.ConfigMap{}, 0, nil, Options{}).opts.Ring, "no ring stays no ring")
}
