package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Lease timings of shardreplica (startReplica): a replica keeps delivering
// a range for at most shardRenew after its last renewal of the claim.
const shardRenew = 3 * time.Second

// TestShardedPartition partitions a sharded replica from the apiserver
// without killing it: replica p1 reaches the sharded apiserver through a
// faultProxy on 127.0.0.1, p2 directly, and updates run throughout. The
// proxy first resets every connection of p1 (and every new one), later
// blackholes them; each time p1 must stop delivering its ranges by its
// renew deadline, before its claims can expire, p2 must start each of
// them only after p1 stopped it, and no add or update of a range may be
// delivered by one replica while the other owns the range (overlap 0).
// When the proxy lets traffic through again, p1 rejoins and gets ranges
// back through graceful handovers, again without overlap. It prints the
// time to stop, the gap before the takeover and the overlap.
func TestShardedPartition(t *testing.T) {
	c := needCluster(t)
	kcFile := filepath.Join(c.dir, "kubeconfig-sharded")
	if _, err := os.Stat(kcFile); err != nil {
		t.Skip("no sharded apiserver (FANOUT_E2E_SHARDED=0)")
	}
	bin := buildShardReplica(t)
	cs := c.clientset(t, "kubeconfig-sharded")
	ctx := t.Context()
	ns := "partition-" + runID(t)
	createNamespace(ctx, t, cs, ns)
	const objects = 300
	if err := parallel(objects, 16, func(i int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i)}}, metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}

	proxy, kcProxy := proxiedKubeconfig(t, kcFile)
	defer proxy.Close()
	p1 := startReplica(t, bin, kcProxy, ns, "part", "p1", shardRanges)
	p2 := startReplica(t, bin, kcFile, ns, "part", "p2", shardRanges)
	defer func() {
		for _, p := range []*replicaProc{p1, p2} {
			p.stop(t)
		}
	}()
	waitRanges(t, []*replicaProc{p1, p2}, 90*time.Second)

	wctx, stopWrites := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { partitionWrites(wctx, cs, ns, objects) })
	defer func() {
		stopWrites()
		wg.Wait()
	}()

	var lines []string
	for _, mode := range []string{"reset", "blackhole"} {
		owned := p1.ownedCount()
		start := time.Now()
		proxy.set(mode)
		eventually(t, 30*time.Second, "p1 stops delivering while partitioned ("+mode+")", func() string {
			if n := p1.ownedCount(); n != 0 {
				return fmt.Sprintf("p1 owns %d ranges", n)
			}
			return ""
		})
		eventually(t, 60*time.Second, "p2 takes every range over ("+mode+")", func() string {
			if n := p2.ownedCount(); n != shardRanges {
				return fmt.Sprintf("p2 owns %d of %d ranges", n, shardRanges)
			}
			return ""
		})
		partitioned := time.Since(start)
		proxy.set("pass")
		healed := time.Now()
		waitRanges(t, []*replicaProc{p1, p2}, 90*time.Second)
		stop, gap := takeoverFigures(t, p1.snapshot(), p2.snapshot(), start)
		lines = append(lines, fmt.Sprintf("%-9s p1 owned %2d ranges; stopped %5.2fs after the cut (renew deadline %v, lease %v); p2 started each %5.2fs or more after p1 stopped it; p1 rejoined %5.2fs after the heal (partition %5.1fs)",
			mode, owned, stop.Seconds(), shardRenew, shardLease, gap.Seconds(), time.Since(healed).Seconds(), partitioned.Seconds()))
		if stop >= shardLease {
			t.Errorf("%s: p1 stopped %v after the cut, not before its claims could expire (%v)", mode, stop, shardLease)
		}
	}
	stopWrites()
	wg.Wait()
	deliveries, overlap := partitionOverlap(p1.snapshot(), p2.snapshot())
	if overlap != 0 {
		t.Errorf("%d adds or updates delivered by one replica while the other owned the range", overlap)
	}
	if deliveries == 0 {
		t.Error("no deliveries: the check saw nothing")
	}
	fmt.Printf("== sharded replica partitioned from the apiserver (faultProxy on 127.0.0.1, %d ranges, %d objects):\n", shardRanges, objects)
	for _, l := range lines {
		fmt.Println("  " + l)
	}
	fmt.Printf("  overlap: %d of %d adds and updates delivered while the other replica owned the range\n", overlap, deliveries)
}

// proxiedKubeconfig starts a faultProxy in front of kubeconfig file's
// server and writes a copy of the file that goes through it.
func proxiedKubeconfig(t *testing.T, file string) (*faultProxy, string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cl := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
	u, err := url.Parse(cl.Server)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := newFaultProxy(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	// The serving certificate names 127.0.0.1, which the proxy's address
	// keeps.
	u.Host = proxy.Addr()
	cl.Server = u.String()
	out := filepath.Join(t.TempDir(), "kubeconfig-proxied")
	if err := clientcmd.WriteToFile(*cfg, out); err != nil {
		proxy.Close()
		t.Fatal(err)
	}
	return proxy, out
}

// partitionWrites updates random ConfigMaps of ns at about 50 a second
// until ctx ends.
func partitionWrites(ctx context.Context, cs kubernetes.Interface, ns string, objects int) {
	rng := rand.New(rand.NewPCG(7, 8))
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		name := fmt.Sprintf("cm-%03d", rng.IntN(objects))
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		cm.Data = map[string]string{"n": fmt.Sprint(n)}
		_, _ = cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	}
}

// ownInterval is when a replica owned a range: from its start to the end
// of its stop (a graceful stop drains until then).
type ownInterval struct{ from, to int64 }

// intervals returns each range's ownership intervals from a replica's
// lines; an interval still open ends at the end of time.
func intervals(lines []replicaLine) map[int][]ownInterval {
	out := map[int][]ownInterval{}
	open := map[int]int64{}
	for _, l := range lines {
		switch l.K {
		case "start":
			open[l.Range] = l.T
		case "stopped":
			if from, ok := open[l.Range]; ok {
				out[l.Range] = append(out[l.Range], ownInterval{from, l.T})
				delete(open, l.Range)
			}
		}
	}
	for r, from := range open {
		out[r] = append(out[r], ownInterval{from, 1<<63 - 1})
	}
	return out
}

// partitionOverlap counts the adds and updates of a and b, and those
// delivered while the other replica owned the object's range.
func partitionOverlap(a, b []replicaLine) (deliveries, overlap int) {
	count := func(lines []replicaLine, other map[int][]ownInterval) {
		for _, l := range lines {
			if l.K != "add" && l.K != "update" {
				continue
			}
			deliveries++
			for _, iv := range other[l.Range] {
				if l.T > iv.from && l.T < iv.to {
					overlap++
					break
				}
			}
		}
	}
	count(a, intervals(b))
	count(b, intervals(a))
	return deliveries, overlap
}

// takeoverFigures returns, for the cut at start, how long after it the
// first replica's last stop came, and the shortest time between its stop
// of a range and the second replica's start of it; it fails the test if
// the second replica started a range before the first stopped it.
func takeoverFigures(t *testing.T, first, second []replicaLine, start time.Time) (stop, gap time.Duration) {
	t.Helper()
	cut := start.UnixNano()
	stopped := map[int]int64{}
	for _, l := range first {
		if l.K == "stop" && l.T >= cut {
			if _, ok := stopped[l.Range]; !ok {
				stopped[l.Range] = l.T
				stop = max(stop, time.Duration(l.T-cut))
			}
		}
	}
	gap = time.Duration(1<<63 - 1)
	var bad []string
	for _, l := range second {
		if l.K != "start" || l.T < cut {
			continue
		}
		at, ok := stopped[l.Range]
		switch {
		case !ok:
			continue // a range the first replica did not own
		case l.T <= at:
			bad = append(bad, fmt.Sprint(l.Range))
		default:
			gap = min(gap, time.Duration(l.T-at))
		}
		delete(stopped, l.Range) // only the first start after the cut
	}
	if len(bad) > 0 {
		t.Errorf("ranges %s started by the new owner before the partitioned one stopped them", strings.Join(bad, ", "))
	}
	if gap == time.Duration(1<<63-1) {
		gap = 0
	}
	return stop, gap
}
