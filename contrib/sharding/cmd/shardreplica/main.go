// Command shardreplica is one replica of a sharded ConfigMap informer, for
// the end-to-end suite and as a small example. It prints JSON lines on
// stdout: every handler call ("add", "update", "delete", "gone" for a
// range's objects handed over, with the object's name, resourceVersion and
// range), every change of the number of owned ranges ("ownedCount"), every
// start and stop of a range ("start", "stop" when the stop begins,
// "stopped" when it returned, with "graceful" for a planned handover),
// "handover" when a handed-over range's claim was released, "synced" once,
// and on the stdin commands "stats" and "dump" its counters and its
// store's names, resourceVersions and owned ranges. SIGTERM makes it leave
// the ring gracefully. It drives its ShardedInformer with a Coordinator of
// its own (rather than RunWithContext) only to trace the range starts and
// stops.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/contrib/sharding"
	"github.com/kfanout/fanout/informer"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "default", "namespace of the ConfigMaps and the ring's Leases")
	ring := flag.String("ring", "shardreplica", "ring name")
	identity := flag.String("identity", "", "replica identity (unique per process)")
	ranges := flag.Int("ranges", 16, "number of hash ranges (a power of two)")
	lease := flag.Duration("lease", 6*time.Second, "lease duration")
	renew := flag.Duration("renew", 3*time.Second, "renew deadline")
	retry := flag.Duration("retry", time.Second, "retry period")
	klog.InitFlags(nil)
	flag.Parse()
	if err := run(*kubeconfig, *namespace, *ring, *identity, *ranges, *lease, *renew, *retry); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// out writes one JSON line per call, whole, so lines of concurrent callers
// do not mix.
type out struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (o *out) emit(v map[string]any) {
	v["t"] = time.Now().UnixNano()
	b, _ := json.Marshal(v)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w.Write(append(b, '\n'))
	o.w.Flush()
}

// metrics prints owned-range changes and counts client-side filtering.
type metrics struct {
	out      *out
	owned    atomic.Int64
	filtered atomic.Int64
}

func (m *metrics) OwnedRanges(n int) {
	if m.owned.Swap(int64(n)) != int64(n) {
		m.out.emit(map[string]any{"k": "ownedCount", "count": n})
	}
}
func (m *metrics) Handover(r sharding.Range, d time.Duration) {
	m.out.emit(map[string]any{"k": "handover", "range": r.Index, "ms": d.Milliseconds()})
}
func (m *metrics) RangeObjects(sharding.Range, int)       {}
func (m *metrics) ClientFiltered(_ sharding.Range, n int) { m.filtered.Add(int64(n)) }

// tracedTarget prints every range start and stop the Coordinator asks of
// the informer: "stop" before the stop begins, "stopped" once it returned
// (for a forced stop: the range's handlers are removed).
type tracedTarget struct {
	*sharding.ShardedInformer
	out *out
}

func (t tracedTarget) StartRange(ctx context.Context, r sharding.Range) {
	t.out.emit(map[string]any{"k": "start", "range": r.Index})
	t.ShardedInformer.StartRange(ctx, r)
}

func (t tracedTarget) StopRange(ctx context.Context, r sharding.Range, graceful bool) {
	t.out.emit(map[string]any{"k": "stop", "range": r.Index, "graceful": graceful})
	t.ShardedInformer.StopRange(ctx, r, graceful)
	t.out.emit(map[string]any{"k": "stopped", "range": r.Index, "graceful": graceful})
}

func run(kubeconfig, namespace, ring, identity string, ranges int, lease, renew, retry time.Duration) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	o := &out{w: bufio.NewWriter(os.Stdout)}
	m := &metrics{out: o}
	lw := &informer.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			return cs.CoreV1().ConfigMaps(namespace).List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return cs.CoreV1().ConfigMaps(namespace).Watch(ctx, opts)
		},
	}
	s := sharding.NewShardedInformer(lw, &corev1.ConfigMap{}, sharding.Options{Metrics: m})
	coord, err := sharding.NewCoordinator(sharding.Config{
		Client: cs.CoordinationV1(), Namespace: namespace, Ring: ring, Identity: identity,
		Ranges: ranges, LeaseDuration: lease, RenewDeadline: renew, RetryPeriod: retry,
	}, tracedTarget{s, o}, sharding.CoordinatorOptions{Metrics: m})
	if err != nil {
		return err
	}
	var events atomic.Int64
	emit := func(kind string, obj any) {
		events.Add(1)
		if d, ok := informer.AsDeletedFinalStateUnknown(obj); ok {
			obj, kind = d.Obj, "gone"
		}
		cm := obj.(*corev1.ConfigMap)
		h, _ := sharding.HashObject(sharding.KeyUID, cm)
		o.emit(map[string]any{"k": kind, "n": cm.Name, "rv": cm.ResourceVersion, "range": sharding.RangeIndex(h, ranges)})
	}
	reg, err := s.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { emit("add", obj) },
		UpdateFunc: func(_, obj any) { emit("update", obj) },
		DeleteFunc: func(obj any) { emit("delete", obj) },
	})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	done := make(chan struct{})
	go func() {
		defer close(done)
		coord.Run(ctx) // on return every range is stopped
		s.Wait()
	}()
	go func() {
		select {
		case <-reg.HasSyncedChecker().Done():
			o.emit(map[string]any{"k": "synced"})
		case <-done:
		}
	}()
	// Commands on stdin; the goroutine ends with the process.
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			switch sc.Text() {
			case "stats":
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				o.emit(map[string]any{"k": "stats", "events": events.Load(), "filtered": m.filtered.Load(),
					"heap": ms.HeapInuse, "objects": len(s.GetStore().ListKeys())})
			case "dump":
				objs := s.GetStore().List()
				slices.SortFunc(objs, func(a, b any) int {
					return strings.Compare(a.(*corev1.ConfigMap).Name, b.(*corev1.ConfigMap).Name)
				})
				names := make([]string, 0, len(objs))
				rvs := make([]string, 0, len(objs))
				for _, obj := range objs {
					cm := obj.(*corev1.ConfigMap)
					names = append(names, cm.Namespace+"/"+cm.Name)
					rvs = append(rvs, cm.ResourceVersion)
				}
				var owned []int
				for _, r := range s.OwnedRanges() {
					owned = append(owned, r.Index)
				}
				slices.Sort(owned)
				o.emit(map[string]any{"k": "dump", "names": names, "rvs": rvs, "owned": owned})
			}
		}
	}()
	<-done
	o.emit(map[string]any{"k": "exit"})
	return nil
}
