package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/informers"
)

// TestRemoveInformerE2E removes one of the two running informers of a
// contrib/clientgo typed factory. The apiserver must then count one watch
// fewer on that resource (and as many on the other), the process must be
// back to the goroutines it had before the informer was added, the other
// informer must go on, and a later Informer() must return a fresh informer
// that syncs and watches again.
func TestRemoveInformerE2E(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	cs := c.clientset(t, "kubeconfig")
	ns := "remove-" + runID(t)
	createNamespace(ctx, t, cs, ns)

	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	runCtx, stop := context.WithCancel(ctx)
	defer func() { stop(); f.Shutdown() }()
	cmInformer := f.Core().V1().ConfigMaps().Informer()
	f.Start(runCtx.Done())
	waitFactorySynced(runCtx, t, f)

	// The baseline: the factory runs its ConfigMap informer only. Both
	// resources are watched by this test only (the apiserver's own
	// informers watch neither ConfigMaps of ns nor PodTemplates).
	cmWatches := watchCount(ctx, t, cs, "configmaps")
	ptWatches := watchCount(ctx, t, cs, "podtemplates")
	baseline := goleak.IgnoreCurrent()
	goroutines := runtime.NumGoroutine()

	ptInformer := f.Core().V1().PodTemplates().Informer()
	f.Start(runCtx.Done())
	waitFactorySynced(runCtx, t, f)
	waitWatchCount(ctx, t, cs, "podtemplates", ptWatches+1)
	withTwo := runtime.NumGoroutine()

	start := time.Now()
	if err := f.(informers.InformerRemover).RemoveInformer(ctx, &corev1.PodTemplate{}); err != nil {
		t.Fatalf("RemoveInformer: %v", err)
	}
	removed := time.Since(start)
	waitWatchCount(ctx, t, cs, "podtemplates", ptWatches)
	closed := time.Since(start)
	if n := watchCount(ctx, t, cs, "configmaps"); n != cmWatches {
		t.Errorf("configmaps watches: %d after removing the PodTemplate informer, want %d", n, cmWatches)
	}
	// Every goroutine started since the baseline must end; goleak retries
	// for a while, and the loop gives a loaded machine more time.
	var leaked error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if leaked = goleak.Find(append(harnessGoroutines(), baseline)...); leaked == nil {
			break
		}
	}
	if leaked != nil {
		t.Fatalf("goroutines not back to the baseline after RemoveInformer: %v", leaked)
	}
	t.Logf("RemoveInformer returned in %v, watch closed (apiserver metric) after %v; goroutines %d -> %d with two informers -> %d after removal",
		removed.Round(time.Microsecond), closed.Round(time.Millisecond), goroutines, withTwo, runtime.NumGoroutine())

	// The removed informer is stopped; the other one still serves.
	if _, err := ptInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{}); err == nil {
		t.Error("AddEventHandler on the removed informer: want an error")
	}
	if err := f.(informers.InformerRemover).RemoveInformer(ctx, &corev1.PodTemplate{}); err == nil {
		t.Error("RemoveInformer of a type no longer held: want an error")
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after-remove", Namespace: ns}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the ConfigMap informer sees a new object", func() string {
		if _, ok, _ := cmInformer.GetStore().GetByKey(ns + "/after-remove"); !ok {
			return "not in the store"
		}
		return ""
	})

	// A later Informer() builds a fresh informer, which the next Start runs.
	pt := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "fresh", Namespace: ns}, Template: corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}},
	}}
	if _, err := cs.CoreV1().PodTemplates(ns).Create(ctx, pt, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fresh := f.Core().V1().PodTemplates()
	if fresh.Informer() == ptInformer {
		t.Fatal("Informer() after RemoveInformer returned the removed informer")
	}
	f.Start(runCtx.Done())
	waitFactorySynced(runCtx, t, f)
	if _, err := fresh.Lister().PodTemplates(ns).Get("fresh"); err != nil {
		t.Fatalf("the fresh informer's lister: %v", err)
	}
	waitWatchCount(ctx, t, cs, "podtemplates", ptWatches+1)
}

// waitFactorySynced waits until every started informer of f has synced.
func waitFactorySynced(ctx context.Context, t *testing.T, f informers.SharedInformerFactory) {
	t.Helper()
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for typ, ok := range f.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			t.Fatalf("%v: not synced", typ)
		}
	}
}

// waitWatchCount waits until the apiserver counts want watches on resource.
func waitWatchCount(ctx context.Context, t *testing.T, cs kubernetes.Interface, resource string, want int) {
	t.Helper()
	eventually(t, 15*time.Second, resource+" watches", func() string {
		if n := watchCount(ctx, t, cs, resource); n != want {
			return fmt.Sprintf("the apiserver counts %d, want %d", n, want)
		}
		return ""
	})
}

// watchCount reads the apiserver's /metrics and returns how many WATCH
// requests on resource it is serving (apiserver_longrunning_requests,
// summed over scopes and groups).
func watchCount(ctx context.Context, t *testing.T, cs kubernetes.Interface, resource string) int {
	t.Helper()
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatalf("apiserver /metrics: %v", err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_longrunning_requests{") ||
			!strings.Contains(line, `verb="WATCH"`) || !strings.Contains(line, `resource="`+resource+`"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("apiserver /metrics: %q: %v", line, err)
		}
		n += int(v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("apiserver /metrics: %v", err)
	}
	return n
}
