package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/examples/overload/demo"
	"github.com/kfanout/fanout/informer"
)

const (
	// requestTimeout bounds every request but the informer's (client-go
	// sets no timeout of its own).
	requestTimeout = 30 * time.Second
	// inFlightGrace is how long updates in flight when the load stops may
	// still take.
	inFlightGrace = 5 * time.Second
)

// clusterSource is a demo.Source on a real API server: the informer lists
// and watches the demo's ConfigMaps through client-go's REST client, and
// Produce patches them through the API from several concurrent clients.
type clusterSource struct {
	*informer.ListWatch

	cs      kubernetes.Interface
	ns      string
	objects int
	payload string
	workers int
	// run prefixes every value this source writes, so that no patch
	// repeats a value an earlier run left (the server would make it a
	// no-op, without a new version or a watch event).
	run string

	watching atomic.Bool
	produced atomic.Uint64
	failed   atomic.Uint64
}

// newClusterSource returns the demo.NewSourceFunc of namespace ns, whose
// ConfigMaps createObjects has made; workers is the number of concurrent
// update requests.
func newClusterSource(cs kubernetes.Interface, ns string, workers int) demo.NewSourceFunc {
	return func(_ context.Context, cfg demo.Config) (demo.Source, error) {
		s := &clusterSource{
			cs:      cs,
			ns:      ns,
			objects: cfg.Objects,
			payload: strings.Repeat("x", cfg.Payload),
			workers: workers,
			run:     strconv.FormatInt(time.Now().UnixNano(), 36),
		}
		selectDemo := func(o *metav1.ListOptions) { o.LabelSelector = demoLabel + "=true" }
		s.ListWatch = informer.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns, selectDemo)
		watchFn := s.WatchFuncWithContext
		s.WatchFuncWithContext = func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := watchFn(ctx, o)
			if err == nil {
				s.watching.Store(true)
			}
			return w, err
		}
		return s, nil
	}
}

// Watching reports whether a watch request of the informer has succeeded.
func (s *clusterSource) Watching() bool { return s.watching.Load() }

// Produced returns how many updates the server has accepted.
func (s *clusterSource) Produced() uint64 { return s.produced.Load() }

// Produce patches the objects round robin at rate updates per second from
// s.workers goroutines until ctx is done; update n is due at n/rate
// seconds after the start. A failed patch is not counted (and logged, up
// to a few); the load goes on. Requests in flight when ctx ends complete
// before Produce returns.
func (s *clusterSource) Produce(ctx context.Context, rate int, maxLag uint64, received func() uint64) {
	// Requests in flight when ctx ends get inFlightGrace more to complete,
	// so that every update the informer sees is counted, but a dead server
	// does not hold up the end of the load.
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	stopGrace := context.AfterFunc(ctx, func() { time.AfterFunc(inFlightGrace, cancelReqs) })
	defer stopGrace()
	start := time.Now()
	var next atomic.Uint64
	var wg sync.WaitGroup
	for range s.workers {
		wg.Go(func() {
			for {
				n := next.Add(1) - 1
				due := start.Add(time.Duration(float64(n) / float64(rate) * float64(time.Second)))
				if !sleepUntil(ctx, due) {
					return
				}
				for s.produced.Load() >= received()+maxLag {
					if !sleepUntil(ctx, time.Now().Add(time.Millisecond)) {
						return
					}
				}
				s.update(reqCtx, int(n%uint64(s.objects)), n+1)
			}
		})
	}
	wg.Wait()
}

// update sets version v of object i through a merge patch.
func (s *clusterSource) update(ctx context.Context, i int, v uint64) {
	patch := fmt.Appendf(nil, `{"data":{"value":%q}}`, s.run+"-"+strconv.FormatUint(v, 10)+":"+s.payload)
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	_, err := s.cs.CoreV1().ConfigMaps(s.ns).Patch(ctx, objectName(i), types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		if s.failed.Add(1) <= 5 {
			klog.FromContext(ctx).Error(err, "Update failed", "object", objectName(i))
		}
		return
	}
	s.produced.Add(1)
}

// Latest lists the demo's ConfigMaps and returns their resourceVersions.
func (s *clusterSource) Latest(ctx context.Context) (map[string]int, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	list, err := s.cs.CoreV1().ConfigMaps(s.ns).List(ctx, metav1.ListOptions{LabelSelector: demoLabel + "=true"})
	if err != nil {
		return nil, err
	}
	latest := make(map[string]int, len(list.Items))
	for _, cm := range list.Items {
		rv, err := strconv.Atoi(cm.ResourceVersion)
		if err != nil {
			return nil, fmt.Errorf("%s: resourceVersion %q is not a number", cm.Name, cm.ResourceVersion)
		}
		latest[cm.Name] = rv
	}
	return latest, nil
}

// sleepUntil waits until t; it reports false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
