package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kfanout/fanout/contrib/sharding"
)

// filterCount is a sharding.Metrics that counts what the client filtered.
type filterCount struct{ filtered atomic.Int64 }

func (*filterCount) OwnedRanges(int)                        {}
func (*filterCount) Handover(sharding.Range, time.Duration) {}
func (*filterCount) RangeObjects(sharding.Range, int)       {}
func (f *filterCount) ClientFiltered(_ sharding.Range, n int) {
	f.filtered.Add(int64(n))
}

// TestShardedControllerRuntimeCache runs two controller-runtime caches, as
// two replicas' managers would, built with
// cache.Options{NewInformer: sharding.NewInformerFunc(...)} on the
// apiserver with ShardedListAndWatch: once both have settled, their Lists
// partition the server's ConfigMaps (every object in exactly one cache),
// the server did the filtering, and objects created meanwhile land in one
// cache; when one replica stops, the other lists every object.
func TestShardedControllerRuntimeCache(t *testing.T) {
	c := needCluster(t)
	cs := c.clientset(t, "kubeconfig-sharded")
	ctx := t.Context()
	id := runID(t)
	ns := "shcr-" + id
	createNamespace(ctx, t, cs, ns)
	create := func(from, to int) {
		t.Helper()
		if err := parallel(to-from, 16, func(i int) error {
			_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", from+i)}}, metav1.CreateOptions{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	create(0, 300)

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	type replica struct {
		cache   crcache.Cache
		metrics *filterCount
		cancel  context.CancelFunc
		done    chan error
	}
	start := func(identity string) *replica {
		r := &replica{metrics: &filterCount{}, done: make(chan error, 1)}
		ring := sharding.Config{
			Client: cs.CoordinationV1(), Namespace: ns, Ring: "crc", Identity: identity, Ranges: 16,
			LeaseDuration: 6 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: time.Second,
		}
		cache, err := crcache.New(c.config(t, "kubeconfig-sharded"), crcache.Options{
			Scheme:            scheme,
			DefaultNamespaces: map[string]crcache.Config{ns: {}},
			NewInformer:       sharding.NewInformerFunc(sharding.Options{Ring: &ring, Metrics: r.metrics}),
		})
		if err != nil {
			t.Fatal(err)
		}
		r.cache = cache
		var runCtx context.Context
		runCtx, r.cancel = context.WithCancel(ctx)
		go func() { r.done <- cache.Start(runCtx) }()
		if _, err := cache.GetInformer(ctx, &corev1.ConfigMap{}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	stop := func(r *replica) {
		r.cancel()
		if err := <-r.done; err != nil {
			t.Errorf("cache: %v", err)
		}
	}
	names := func(r *replica) ([]string, error) {
		var list corev1.ConfigMapList
		if err := r.cache.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		var out []string
		for _, cm := range list.Items {
			out = append(out, cm.Name)
		}
		return out, nil
	}
	serverNames := func() ([]string, error) {
		list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, cm := range list.Items {
			if strings.HasPrefix(cm.Name, "cm-") {
				out = append(out, cm.Name)
			}
		}
		slices.Sort(out)
		return out, nil
	}
	partitioned := func(rs ...*replica) func() string {
		return func() string {
			want, err := serverNames()
			if err != nil {
				return err.Error()
			}
			var got []string
			var sizes []int
			for _, r := range rs {
				n, err := names(r)
				if err != nil {
					return err.Error()
				}
				sizes = append(sizes, len(n))
				got = append(got, n...)
			}
			slices.Sort(got)
			if !slices.Equal(want, got) {
				return fmt.Sprintf("caches hold %d objects (%v), the server %d", len(got), sizes, len(want))
			}
			for i, s := range sizes {
				if len(rs) > 1 && s == 0 {
					return fmt.Sprintf("replica %d owns nothing", i)
				}
			}
			return ""
		}
	}

	a, b := start("a"), start("b")
	defer stop(a)
	eventually(t, 90*time.Second, "two caches partition the objects", partitioned(a, b))
	create(300, 400)
	eventually(t, 30*time.Second, "new objects land in one cache", partitioned(a, b))
	for i, r := range []*replica{a, b} {
		if n := r.metrics.filtered.Load(); n != 0 {
			t.Errorf("replica %d filtered %d objects on the client: the server should have", i, n)
		}
	}
	na, _ := names(a)
	nb, _ := names(b)
	t.Logf("replica a holds %d ConfigMaps, b %d", len(na), len(nb))

	stop(b)
	eventually(t, 30*time.Second, "the survivor lists every object", partitioned(a))
}
