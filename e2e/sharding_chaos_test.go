package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	chaosObjects     = 1000
	chaosMinReplicas = 2
	chaosMaxReplicas = 5
	// chaosQuiet is how long after a SIGKILL nothing but graceful leaves
	// happen: the dead replica's ranges must be taken over within lease
	// duration plus one retry period (plus the round), which holds for
	// replicas that watched its claims before it died; a replica joining
	// later, or a second death, may legitimately take longer.
	chaosQuiet = shardLease + shardRetry + time.Second
	// chaosSettle bounds the time from the last chaos action until every
	// range is served by exactly one live replica.
	chaosSettle = shardLease + shardRetry + 2*time.Second
)

// chaosSummary is one chaos run's figures.
type chaosSummary struct {
	mode                 string
	duration             time.Duration
	joins, leaves, kills int
	ops                  *chaosOps
	res                  replayResult
	maxTakeover          time.Duration
	settle               time.Duration
	objects              int
}

// TestShardedChaos runs shardreplica processes on one ring while, for
// FANOUT_SHARD_CHAOS_DURATION (default 60s; the client-side run a quarter
// of it), replicas join, leave gracefully (SIGTERM) and are SIGKILLed at
// seeded random intervals (FANOUT_SHARD_CHAOS_SEED fixes the seed), 2 to 5
// alive at a time, while a workload creates, updates and deletes
// ConfigMaps. It then checks the whole history: no add or update by two
// replicas at once (replayReplicas), every SIGKILLed replica's ranges taken
// over within lease duration plus one retry period, every range served by
// exactly one live replica shortly after the chaos, the live replicas'
// stores and what their handlers were told both equal to the server's
// objects and resourceVersions, each object held once.
func TestShardedChaos(t *testing.T) {
	c := needCluster(t)
	if _, err := os.Stat(filepath.Join(c.dir, "kubeconfig-sharded")); err != nil {
		t.Skip("no sharded apiserver (FANOUT_E2E_SHARDED=0)")
	}
	dur := 60 * time.Second
	if v := os.Getenv("FANOUT_SHARD_CHAOS_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("FANOUT_SHARD_CHAOS_DURATION: %v", err)
		}
		dur = d
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("FANOUT_SHARD_CHAOS_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("FANOUT_SHARD_CHAOS_SEED: %v", err)
		}
		seed = s
	}
	t.Logf("chaos seed %d (FANOUT_SHARD_CHAOS_SEED=%d repeats the schedule), duration %v", seed, seed, dur)
	bin := buildShardReplica(t)
	modes := []struct {
		name, kubeconfig string
		dur, pause       time.Duration
	}{
		{"server-side", "kubeconfig-sharded", dur, 50 * time.Millisecond},
		// Every range's watch gets every event here: a lighter workload.
		{"client-side", "kubeconfig", dur / 4, 100 * time.Millisecond},
	}
	var sums []*chaosSummary
	for i, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := runChaos(t, c, bin, m.kubeconfig, m.dur, m.pause, seed+uint64(i))
			s.mode = m.name
			sums = append(sums, s)
		})
	}
	printChaos(t, seed, sums)
}

// chaosRing is the test's view of the ring's processes.
type chaosRing struct {
	t          *testing.T
	bin, kc    string
	ns, name   string
	procs      []*replicaProc
	next       int
	lastAction time.Time
}

func (r *chaosRing) join() *replicaProc {
	r.next++
	p := startReplica(r.t, r.bin, r.kc, r.ns, r.name, fmt.Sprintf("c%02d", r.next), shardRanges)
	r.procs = append(r.procs, p)
	return p
}

// alive returns the replicas neither sent SIGTERM nor SIGKILLed.
func (r *chaosRing) alive() []*replicaProc {
	var out []*replicaProc
	for _, p := range r.procs {
		if p.killedAt().IsZero() && p.termedAt().IsZero() {
			out = append(out, p)
		}
	}
	return out
}

func runChaos(t *testing.T, c *cluster, bin, kubeconfig string, dur, pause time.Duration, seed uint64) *chaosSummary {
	cs := c.clientset(t, kubeconfig)
	ctx := t.Context()
	ns := "chaos-" + runID(t)
	createNamespace(ctx, t, cs, ns)
	if err := parallel(chaosObjects, 32, func(i int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i)}}, metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// The ring's name also names the replicas' log files.
	ring := &chaosRing{t: t, bin: bin, kc: filepath.Join(c.dir, kubeconfig), ns: ns, name: "chaos-" + strings.TrimSuffix(t.Name()[strings.LastIndex(t.Name(), "/")+1:], "-side")}
	for range 3 {
		ring.join()
	}
	waitRanges(t, ring.procs, 60*time.Second)

	sum := &chaosSummary{duration: dur, ops: &chaosOps{}}
	stopWork := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, chaosWorkers)
	for w := range chaosWorkers {
		wg.Go(func() {
			if err := chaosWorker(ctx, stopWork, cs, ns, w, seed, pause, sum.ops); err != nil {
				errs <- err
			}
		})
	}

	rng := rand.New(rand.NewPCG(seed, 0xc4a05))
	end := time.Now().Add(dur)
	var quietUntil time.Time
	for {
		time.Sleep(1500*time.Millisecond + time.Duration(rng.Int64N(int64(3*time.Second))))
		if !time.Now().Before(end) {
			break
		}
		alive := ring.alive()
		calm := time.Now().After(quietUntil)
		synced := true
		for _, p := range alive {
			synced = synced && p.isSynced()
		}
		// Weighted choice among what is allowed now.
		type choice struct {
			what   string
			weight int
		}
		var choices []choice
		if len(alive) < chaosMaxReplicas && calm {
			choices = append(choices, choice{"join", 4})
		}
		if len(alive) > chaosMinReplicas {
			choices = append(choices, choice{"leave", 3})
			if calm && synced {
				choices = append(choices, choice{"kill", 3})
			}
		}
		total := 0
		for _, ch := range choices {
			total += ch.weight
		}
		if total == 0 {
			continue
		}
		pick := rng.IntN(total)
		var what string
		for _, ch := range choices {
			if pick < ch.weight {
				what = ch.what
				break
			}
			pick -= ch.weight
		}
		victim := alive[rng.IntN(len(alive))]
		switch what {
		case "join":
			p := ring.join()
			sum.joins++
			t.Logf("chaos: %s joins (%d alive)", p.id, len(alive)+1)
		case "leave":
			victim.terminate()
			sum.leaves++
			t.Logf("chaos: %s leaves gracefully, owning %d ranges (%d alive)", victim.id, victim.ownedCount(), len(alive)-1)
		case "kill":
			owned := victim.ownedCount()
			victim.kill()
			sum.kills++
			quietUntil = time.Now().Add(chaosQuiet)
			t.Logf("chaos: %s SIGKILLed, owning %d ranges (%d alive)", victim.id, owned, len(alive)-1)
		}
		ring.lastAction = time.Now()
	}
	close(stopWork)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("workload: %v", err)
	}
	if ring.lastAction.IsZero() {
		ring.lastAction = time.Now()
	}
	checkChaosEnd(t, cs, ring, sum)
	return sum
}

// checkChaosEnd waits for the ring to settle after the chaos, then checks
// ownership, stores, handler beliefs and the replay.
func checkChaosEnd(t *testing.T, cs kubernetes.Interface, ring *chaosRing, sum *chaosSummary) {
	t.Helper()
	ctx := t.Context()
	live := ring.alive()
	eventually(t, 30*time.Second, "leaving replicas exited", func() string {
		for _, p := range ring.procs {
			if !p.termedAt().IsZero() && !p.hasExited() {
				return p.id + " still running"
			}
		}
		return ""
	})
	eventually(t, 60*time.Second, "every range served by exactly one live replica", func() string {
		count := make([]int, shardRanges)
		var parts []string
		for _, p := range live {
			d := p.ask(t, "dump")
			for _, i := range d.Owned {
				count[i]++
			}
			parts = append(parts, fmt.Sprintf("%s=%d", p.id, len(d.Owned)))
		}
		for i, n := range count {
			if n != 1 {
				return fmt.Sprintf("range %d served by %d live replicas (%s)", i, n, strings.Join(parts, " "))
			}
		}
		return ""
	})
	// Settled at the last range start or stop, as the replicas printed it
	// (the poll above may see it later).
	var last int64
	for _, p := range ring.procs {
		for _, l := range p.snapshot() {
			if l.K == "start" || l.K == "stopped" {
				last = max(last, l.T)
			}
		}
	}
	sum.settle = max(0, time.Unix(0, last).Sub(ring.lastAction))
	t.Logf("every range served by exactly one of %d live replicas %v after the last chaos action", len(live), sum.settle.Round(time.Millisecond))
	if sum.settle > chaosSettle {
		t.Errorf("ranges settled %v after the last chaos action, more than lease duration + retry period + 2 s (%v)", sum.settle.Round(time.Millisecond), chaosSettle)
	}

	// The server's objects are listed again at every attempt: a store is
	// compared with a list taken after every write it may hold.
	var want map[string]string
	listServer := func() string {
		list, err := cs.CoreV1().ConfigMaps(ring.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return "server list: " + err.Error()
		}
		want = map[string]string{}
		for _, cm := range list.Items {
			want[ring.ns+"/"+cm.Name] = cm.ResourceVersion
		}
		return ""
	}
	eventually(t, 30*time.Second, "live replicas' stores partition the server's objects", func() string {
		if msg := listServer(); msg != "" {
			return msg
		}
		got := map[string]string{}
		n := 0
		for _, p := range live {
			d := p.ask(t, "dump")
			n += len(d.Names)
			for i, k := range d.Names {
				got[k] = d.RVs[i]
			}
		}
		if n != len(got) {
			return fmt.Sprintf("stores hold %d objects, %d distinct", n, len(got))
		}
		return diffStates(want, got)
	})
	sum.objects = len(want)
	eventually(t, 30*time.Second, "live replicas' handlers were told the server's objects", func() string {
		if msg := listServer(); msg != "" {
			return msg
		}
		return diffBeliefs(replayReplicas(ring.ns, ring.procs), want)
	})
	sum.res = checkExclusive(t, ring.ns, ring.procs)
	for _, p := range ring.procs {
		took, ok := sum.res.takeovers[p.id]
		switch {
		case !ok:
		case took < 0:
			t.Errorf("%s's ranges were never all taken over", p.id)
		case took > shardLease+shardRetry+time.Second:
			t.Errorf("takeover of %s's ranges took %v, more than lease duration + one retry period (+1 s for the round itself)", p.id, took.Round(time.Millisecond))
		}
		sum.maxTakeover = max(sum.maxTakeover, took)
	}
}

// printChaos prints the runs' figures.
func printChaos(t *testing.T, seed uint64, sums []*chaosSummary) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nsharded chaos, seed %d, %d ranges, %d initial ConfigMaps, lease %v, retry %v\n", seed, shardRanges, chaosObjects, shardLease, shardRetry)
	fmt.Fprintf(&b, "%-12s %5s %5s %6s %5s %9s %7s %9s %8s %10s %10s %6s %7s %7s\n",
		"filtering", "secs", "joins", "leaves", "kills", "handovers", "forced", "takeover", "settle", "ops c/u/d", "deliveries", "viol", "outside", "objects")
	for _, s := range sums {
		ops := fmt.Sprintf("%d/%d/%d", s.ops.creates.Load(), s.ops.updates.Load(), s.ops.deletes.Load())
		fmt.Fprintf(&b, "%-12s %5.0f %5d %6d %5d %9d %7d %9s %8s %10s %10d %6d %7d %7d\n",
			s.mode, s.duration.Seconds(), s.joins, s.leaves, s.kills, s.res.handovers, s.res.forced,
			s.maxTakeover.Round(100*time.Millisecond), s.settle.Round(100*time.Millisecond), ops,
			s.res.deliveries, s.res.violations, s.res.outside, s.objects)
	}
	t.Log(b.String())
}
