package parity

import (
	"context"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/decode"
	"github.com/kfanout/fanout/informer"
)

// The "real" benchmarks (round two, issue 16) run both libraries over a
// realistic source: client-go's clientset against realServer, so that the
// REST client, decoding and the allocation of real Pods are part of every
// figure. The implementations (sub-benchmark impl=, FANOUT_REAL_IMPLS
// restricts them):
//
//   - clientgo: client-go v0.37.2 defaults.
//   - clientgo-nomf: client-go with the transform many controllers set by
//     hand, dropping managedFields (for the opt-in comparison).
//   - fanout: fanout's defaults (client-go's: RealFIFO, watch-list).
//   - fanout-listwatch: the defaults with the WatchListClient gate off
//     (KUBE_FEATURE_WatchListClient=false): RealFIFO fed by list+watch.
//   - fanout-deltafifo: fanout's defaults before issue 23: the DeltaFIFO
//     (InOrder false) fed by list+watch.
//   - fanout-lean: fanout with its opt-in memory options: the
//     informer.DropFields transform (managedFields) and string interning.
//   - fanout-leanest: fanout dropping managedFields and sharing equal
//     values across cached objects (informer.ShareEqualValues).
//   - fanout-decode: fanout's lean path: the clientset's responses
//     filtered by contrib/clientgo/decode (managedFields never decoded),
//     and informer.ShareEqualValues.
//   - fanout-owndecode: the decode filter, and Pods built by fanout's
//     own decoder (decode.NewClientset, whose lists stream), which makes strings once and
//     shares equal parts while decoding; no transform.
//   - fanout-decode-intern: the decode filter and the lighter
//     informer.InternLabelsAndAnnotations.
//
// Both informers are built over the same *cache.ListWatch. Scenarios take
// their size from FANOUT_REAL_PODS (comma-separated Pod counts; default
// 10000,100000).

// eventHandler is a handler both libraries accept.
type eventHandler interface {
	OnAdd(obj any, isInInitialList bool)
	OnUpdate(oldObj, newObj any)
	OnDelete(obj any)
}

// realInformer is what the real benchmarks use of either informer.
type realInformer interface {
	RunWithContext(ctx context.Context)
	HasSynced() bool
	add(h eventHandler) (hasSynced func() bool, err error)
}

type cgRealInformer struct{ cache.SharedIndexInformer }

func (i cgRealInformer) add(h eventHandler) (func() bool, error) {
	r, err := i.AddEventHandler(h)
	if err != nil {
		return nil, err
	}
	return r.HasSynced, nil
}

type foRealInformer struct{ informer.SharedIndexInformer }

func (i foRealInformer) add(h eventHandler) (func() bool, error) {
	r, err := i.AddEventHandler(h)
	if err != nil {
		return nil, err
	}
	return r.HasSynced, nil
}

// realImpl names an informer configuration over a ListWatch.
type realImpl struct {
	name string
	make func(lw cache.ListerWatcher, obj kruntime.Object) realInformer
	// env is set (b.Setenv) while the implementation runs.
	env map[string]string
	// decode, when set, filters the clientset's responses (fanout's
	// decode path) before client-go's decoder sees them.
	decode *decode.Options
	// lean, when set, lists and watches Pods through decode.NewClientset.
	lean bool
}

// clientset returns a clientset of s for im.
func (im realImpl) clientset(tb testing.TB, s *realServer, codec string) kubernetes.Interface {
	cfg := s.config(codec)
	if im.decode != nil {
		cfg = decode.Wrap(cfg, *im.decode)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if !im.lean {
		return cs
	}
	lean, err := decode.NewClientset(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return lean
}

// setup applies im's environment for the benchmark b.
func (im realImpl) setup(b *testing.B) {
	for k, v := range im.env {
		b.Setenv(k, v)
	}
}

var allRealImpls = []realImpl{
	{"clientgo", func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		return cgRealInformer{cache.NewSharedIndexInformer(lw, obj, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})}
	}, nil, nil, false},
	{"clientgo-nomf", func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		i := cache.NewSharedIndexInformer(lw, obj, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		_ = i.SetTransform(func(o any) (any, error) {
			if m, ok := o.(metav1.Object); ok {
				m.SetManagedFields(nil)
			}
			return o, nil
		})
		return cgRealInformer{i}
	}, nil, nil, false},
	{"fanout", func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		return foRealInformer{informer.NewSharedIndexInformer(lw, obj, 0, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})}
	}, nil, nil, false},
	{"fanout-listwatch", func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		return foRealInformer{informer.NewSharedIndexInformer(lw, obj, 0, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})}
	}, map[string]string{"KUBE_FEATURE_WatchListClient": "false"}, nil, false},
	{"fanout-deltafifo", func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		return foRealInformer{informer.NewSharedIndexInformerWithOptions(lw, obj, informer.SharedIndexInformerOptions{
			Indexers: informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc},
			InOrder:  deltaFIFO,
		})}
	}, map[string]string{"KUBE_FEATURE_WatchListClient": "false"}, nil, false},
	{"fanout-lean", func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		i := informer.NewSharedIndexInformer(lw, obj, 0, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})
		_ = i.SetTransform(leanTransform())
		return foRealInformer{i}
	}, nil, nil, false},
	{"fanout-leanest", func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		i := informer.NewSharedIndexInformer(lw, obj, 0, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})
		_ = i.SetTransform(informer.ChainTransforms(informer.DropManagedFields(), informer.ShareEqualValues()))
		return foRealInformer{i}
	}, nil, nil, false},
	{name: "fanout-decode", make: func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		i := informer.NewSharedIndexInformer(lw, obj, 0, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})
		_ = i.SetTransform(informer.ShareEqualValues())
		return foRealInformer{i}
	}, decode: &decode.Options{DropManagedFields: true}},
	{name: "fanout-owndecode", make: func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		return foRealInformer{informer.NewSharedIndexInformer(lw, obj, 0, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})}
	}, decode: &decode.Options{DropManagedFields: true}, lean: true},
	{name: "fanout-decode-intern", make: func(lw cache.ListerWatcher, obj kruntime.Object) realInformer {
		i := informer.NewSharedIndexInformer(lw, obj, 0, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})
		_ = i.SetTransform(informer.InternLabelsAndAnnotations(0))
		return foRealInformer{i}
	}, decode: &decode.Options{DropManagedFields: true}},
}

// realImpls returns the implementations FANOUT_REAL_IMPLS selects, or
// those of def (client-go first).
func realImpls(def ...string) []realImpl {
	sel := def
	if s := os.Getenv("FANOUT_REAL_IMPLS"); s != "" {
		sel = strings.Split(s, ",")
	}
	var out []realImpl
	for _, im := range allRealImpls {
		if slices.Contains(sel, im.name) {
			out = append(out, im)
		}
	}
	return out
}

// realPodCounts returns the Pod counts of the scenarios.
func realPodCounts(b *testing.B, def ...int) []int {
	s := os.Getenv("FANOUT_REAL_PODS")
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("FANOUT_REAL_PODS: %v", err)
		}
		out = append(out, n)
	}
	return out
}

// envInt is an integer from the environment, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// kName is n in thousands, for sub-benchmark names.
func kName(n int) string {
	if n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// listOnly makes both reflectors list, then watch (no watch-list).
type listOnly struct{ *cache.ListWatch }

// IsWatchListSemanticsUnSupported turns watch-list off in both libraries.
func (listOnly) IsWatchListSemanticsUnSupported() bool { return true }

// podListWatch is the Pod ListWatch of a clientset; mode "list" turns
// watch-list off, "default" leaves each library's default (both stream
// by watch-list, unless an implementation turns its WatchListClient gate
// off).
func podListWatch(cs kubernetes.Interface, mode string) cache.ListerWatcher {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (kruntime.Object, error) {
			return cs.CoreV1().Pods("").List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cs.CoreV1().Pods("").Watch(ctx, o)
		},
	}
	if mode == "list" {
		return listOnly{lw}
	}
	return lw
}

// runningReal is a real informer running until stop.
type runningReal struct {
	realInformer
	cancel context.CancelFunc
	done   chan struct{}
}

func startReal(inf realInformer) *runningReal {
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningReal{realInformer: inf, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		inf.RunWithContext(ctx)
	}()
	return r
}

func (r *runningReal) stop() {
	r.cancel()
	<-r.done
}

// realHandler counts adds and updates, closes addsDone and updatesDone
// when the expected numbers are reached, and records, for updates of
// churn events (Generation >= churnGen), the lag since sent[Generation -
// churnGen].
type realHandler struct {
	_                     [64]byte
	wantAdds, wantUpdates int64
	adds, updates         atomic.Int64
	addsDone, updatesDone chan struct{}
	lastAdd               atomic.Int64
	sent                  []atomic.Int64
	lag                   []int64
	_                     [64]byte
}

// churnGen is the Generation of the first churn event.
const churnGen = 2

func newRealHandler(wantAdds, wantUpdates int, sent []atomic.Int64) *realHandler {
	h := &realHandler{wantAdds: int64(wantAdds), wantUpdates: int64(wantUpdates), addsDone: make(chan struct{}), updatesDone: make(chan struct{}), sent: sent}
	if sent != nil {
		h.lag = make([]int64, len(sent))
	}
	if wantAdds == 0 {
		close(h.addsDone)
	}
	return h
}

// OnAdd counts an add.
func (h *realHandler) OnAdd(any, bool) {
	if h.adds.Add(1) == h.wantAdds {
		h.lastAdd.Store(time.Now().UnixNano())
		close(h.addsDone)
	}
}

// OnUpdate counts an update and records its lag.
func (h *realHandler) OnUpdate(_, newObj any) {
	if h.sent != nil {
		if m, ok := newObj.(metav1.Object); ok {
			if g := m.GetGeneration() - churnGen; g >= 0 && int(g) < len(h.sent) {
				h.lag[g] = time.Now().UnixNano() - h.sent[g].Load()
			}
		}
	}
	if h.updates.Add(1) == h.wantUpdates {
		close(h.updatesDone)
	}
}

// OnDelete ignores deletes (the scenarios make none).
func (h *realHandler) OnDelete(any) {}

// heapPeak samples the heap (live and not yet swept objects,
// runtime/metrics /memory/classes/heap/objects:bytes) every millisecond
// until end, and returns the highest sample.
type heapPeak struct {
	stop chan struct{}
	done chan uint64
}

func startHeapPeak() *heapPeak {
	p := &heapPeak{stop: make(chan struct{}), done: make(chan uint64)}
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-p.stop:
				p.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *heapPeak) end() uint64 {
	close(p.stop)
	return <-p.done
}

// lagPercentiles returns the p50 and p99 of the handlers' lags in ms.
func lagPercentiles(hs []*realHandler) (p50, p99 float64) {
	var all []int64
	for _, h := range hs {
		all = append(all, h.lag...)
	}
	if len(all) == 0 {
		return 0, 0
	}
	slices.Sort(all)
	at := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))]) / 1e6 }
	return at(0.50), at(0.99)
}

// numGoroutine is runtime.NumGoroutine, after letting exiting goroutines
// finish.
func numGoroutine() int {
	runtime.Gosched()
	time.Sleep(10 * time.Millisecond)
	return runtime.NumGoroutine()
}

// podObject is the example object of Pod informers.
var podObject = &corev1.Pod{}

// leanTransform is fanout-lean's transform: every opt-in memory option.
func leanTransform() informer.TransformFunc {
	return informer.ChainTransforms(informer.DropManagedFields(), informer.InternLabelsAndAnnotations(0))
}
