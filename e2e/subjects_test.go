package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// subject is one ConfigMap informer under test, fanout's or client-go's,
// behind the few calls the tests make.
type subject struct {
	name       string
	run        func(ctx context.Context)
	hasSynced  func() bool
	list       func() []any
	addHandler func(h *recorder) (synced func() bool, err error)
	// watchErrors receives every error the informer's watch error handler
	// sees.
	watchErrors chan error
}

// selectorModifier limits a list/watch to a label selector.
func selectorModifier(selector string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) { o.LabelSelector = selector }
}

// newFanoutSubject returns a fanout shared informer on ConfigMaps matching
// selector in namespace ns ("" for all), fed by fanout's own ListWatch on
// cs's REST client.
func newFanoutSubject(t *testing.T, name string, cs kubernetes.Interface, ns, selector string, inOrder bool) *subject {
	t.Helper()
	lw := informer.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns, selectorModifier(selector))
	inf := informer.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, informer.SharedIndexInformerOptions{InOrder: &inOrder})
	s := &subject{
		name:        name,
		run:         inf.RunWithContext,
		hasSynced:   inf.HasSynced,
		list:        inf.GetStore().List,
		watchErrors: make(chan error, 1000),
	}
	s.addHandler = func(h *recorder) (func() bool, error) {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return nil, err
		}
		return reg.HasSynced, nil
	}
	if err := inf.SetWatchErrorHandler(func(_ *informer.Reflector, err error) { sendErr(s.watchErrors, err) }); err != nil {
		t.Fatal(err)
	}
	return s
}

// newClientGoSubject is newFanoutSubject with client-go's informer and
// ListWatch, at client-go's default feature gates.
func newClientGoSubject(t *testing.T, name string, cs kubernetes.Interface, ns, selector string) *subject {
	t.Helper()
	lw := cache.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns, selectorModifier(selector))
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	s := &subject{
		name:        name,
		run:         inf.RunWithContext,
		hasSynced:   inf.HasSynced,
		list:        inf.GetStore().List,
		watchErrors: make(chan error, 1000),
	}
	s.addHandler = func(h *recorder) (func() bool, error) {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return nil, err
		}
		return reg.HasSynced, nil
	}
	if err := inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) { sendErr(s.watchErrors, err) }); err != nil {
		t.Fatal(err)
	}
	return s
}

func sendErr(ch chan error, err error) {
	select {
	case ch <- err:
	default:
	}
}

// startAll runs every subject until the test ends and waits until each
// has stopped.
func startAll(t *testing.T, subjects ...*subject) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, s := range subjects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run(ctx)
		}()
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// waitSynced waits until every func returns true.
func waitSynced(t *testing.T, what string, synced ...func() bool) {
	t.Helper()
	eventually(t, 60*time.Second, what, func() string {
		for _, f := range synced {
			if !f() {
				return "not synced"
			}
		}
		return ""
	})
}

// waitConverged waits until the store of every subject and the state
// implied by every recorder equal the server's list for selector.
func waitConverged(ctx context.Context, t *testing.T, cs kubernetes.Interface, selector string, subjects []*subject, recs map[string]*recorder) map[string]string {
	t.Helper()
	var want map[string]string
	eventually(t, 90*time.Second, "stores and handlers equal the server", func() string {
		var err error
		if want, err = serverState(ctx, cs, selector); err != nil {
			return "server list: " + err.Error()
		}
		for _, s := range subjects {
			if d := diffStates(want, storeState(s.list())); d != "" {
				return s.name + " store: " + d
			}
		}
		for name, r := range recs {
			if d := diffStates(want, r.snapshot()); d != "" {
				return name + " handler: " + d
			}
		}
		return ""
	})
	return want
}
