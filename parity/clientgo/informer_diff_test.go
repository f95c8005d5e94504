package parity

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

// The differential informer test drives a client-go v0.37.2 informer and a
// fanout informer (both seen as cache.SharedIndexInformer, the fanout one
// through this package's adapter) with the same seeded random script, each
// from its own fakeSource, inside one synctest bubble. After every step
// synctest.Wait lets both informers and all their handlers go idle, so
// batching and scheduling cannot change what is compared:
//
//   - in-order mode (the default of both libraries, RealFIFO): every
//     handler's whole call sequence must be identical;
//   - DeltaFIFO mode (fanout's InOrder set to false, client-go as it
//     is): every handler's calls must be identical key by key (a relist orders deletes and updates of
//     different keys differently in the two queues), and so must the
//     caches.
//
// Time is fake. Script steps happen at instants 2s past a multiple of
// diffCell. The reflectors' resync ticks fall on multiples of diffCell
// until the first relist, and after a relist 0.8s-1.6s (client-go's first
// jittered backoff) past a step, so a tick never coincides with a step and
// both informers resync between the same two steps; relists are kept more
// than the backoff reset (2 min) apart so the backoff never grows.
const (
	diffCell      = 4 * time.Second
	diffResync    = 60 * time.Second
	diffRelistGap = 124 * time.Second
	diffSteps     = 80
)

// diffMode selects fanout's queue.
type diffMode int

const (
	inOrderMode diffMode = iota
	deltaFIFOMode
)

func (m diffMode) String() string {
	if m == inOrderMode {
		return "inorder"
	}
	return "deltafifo"
}

// diffSide is one informer with its source and recorded handlers.
type diffSide struct {
	name string
	src  *fakeSource
	inf  cache.SharedIndexInformer
	logs []*callLog
	regs []cache.ResourceEventHandlerRegistration
	stop func()
}

// diffRun is one seeded run.
type diffRun struct {
	t          *testing.T
	rng        *rand.Rand
	mode       diffMode
	sides      [2]*diffSide
	active     []int // indices of registered handlers
	compared   []int // per handler, how many calls earlier steps compared
	lastRelist time.Time
	history    []string
}

// informerDiffTransform marks objects so the test can see that the transform ran.
func informerDiffTransform(obj any) (any, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return obj, nil
	}
	cm = cm.DeepCopy()
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["t"] = "1"
	return cm, nil
}

// transformed reports whether obj, or a tombstone's object, carries the
// transform's label.
func transformed(obj any) bool {
	switch t := obj.(type) {
	case cache.DeletedFinalStateUnknown:
		obj = t.Obj
	case informer.DeletedFinalStateUnknown:
		obj = t.Obj
	}
	cm, ok := obj.(*corev1.ConfigMap)
	return ok && cm.Labels["t"] == "1"
}

// recordingHandler records calls, flagging objects the transform missed.
func recordingHandler(l *callLog) cache.ResourceEventHandler {
	mark := func(s string, objs ...any) string {
		for _, o := range objs {
			if !transformed(o) {
				return s + " untransformed"
			}
		}
		return s
	}
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { l.add(mark(describeAdd(obj, initial), obj)) },
		UpdateFunc: func(o, n any) { l.add(mark(describeUpdate(o, n), o, n)) },
		DeleteFunc: func(obj any) { l.add(mark(describeDelete(obj), obj)) },
	}
}

func newDiffSide(name string, mode diffMode, fanout bool, engine informer.ListenerEngine) *diffSide {
	s := &diffSide{name: name, src: newFakeSource()}
	if fanout {
		s.inf = clientgo.NewSharedIndexInformerFunc(func(o *informer.SharedIndexInformerOptions) {
			if mode == deltaFIFOMode {
				o.InOrder = new(bool)
			}
			o.ListenerEngine = engine
		})(s.src, &corev1.ConfigMap{}, diffResync, cache.Indexers{})
	} else {
		s.inf = cache.NewSharedIndexInformer(s.src, &corev1.ConfigMap{}, diffResync, cache.Indexers{})
	}
	return s
}

// diffEngine is the listener engine fanout runs for seed: the default
// (direct) engine, and the classic one for every third seed, so that both
// are compared with client-go at no extra cost.
func diffEngine(seed int64) informer.ListenerEngine {
	if seed%3 == 0 {
		return informer.EngineClassic
	}
	return informer.EngineDirect
}

// runInformerDiff runs one seed in one mode; it must be called inside a
// synctest bubble.
func runInformerDiff(t *testing.T, seed int64, mode diffMode) {
	runInformerDiffWith(t, seed, mode, nil)
}

// runInformerDiffWith is runInformerDiff whose fanout informer, when build
// is not nil, is build's (given the side's source) instead of this
// package's adapter with the mode and engine set.
func runInformerDiffWith(t *testing.T, seed int64, mode diffMode, build func(cache.ListerWatcher) cache.SharedIndexInformer) {
	engine := diffEngine(seed)
	if build != nil {
		t.Logf("seed %d, fanout built by the caller (its default engine)", seed)
	} else {
		t.Logf("seed %d, fanout engine %v", seed, engine)
	}
	r := &diffRun{t: t, rng: rand.New(rand.NewSource(seed)), mode: mode}
	r.sides = [2]*diffSide{newDiffSide("client-go", mode, false, engine), newDiffSide("fanout", mode, true, engine)}
	if build != nil {
		r.sides[1].inf = build(r.sides[1].src)
	}
	defer r.countReplayed()
	for _, s := range r.sides {
		if err := s.inf.SetTransform(informerDiffTransform); err != nil {
			t.Fatalf("%s: SetTransform: %v", s.name, err)
		}
	}
	// Initial objects and handlers, then start.
	for range r.rng.Intn(6) {
		ns, name, data := r.pickKey()
		r.each(func(s *diffSide) { s.src.put(ns, name, data, true) })
	}
	r.history = append(r.history, fmt.Sprintf("initial objects %v", r.sides[0].src.keys()))
	for range 1 + r.rng.Intn(2) {
		r.addHandler([]string{"default", "0", "60s"}[r.rng.Intn(3)])
	}
	defer r.start()()
	synctest.Wait()
	for _, s := range r.sides {
		if !s.inf.HasSynced() {
			t.Fatalf("%s has not synced", s.name)
		}
	}
	r.compare("start")
	time.Sleep(diffCell / 2)
	r.lastRelist = time.Now().Add(-diffRelistGap)

	for i := range diffSteps {
		desc := r.step()
		synctest.Wait()
		r.history = append(r.history, fmt.Sprintf("%d: %s", i, desc))
		r.compare(desc)
		if t.Failed() {
			return
		}
	}
}

// start runs both informers and returns a function that stops them and
// waits until they have.
func (r *diffRun) start() (stop func()) {
	for _, s := range r.sides {
		s.stop = runInformer(s.inf)
	}
	return func() {
		for _, s := range r.sides {
			s.stop()
		}
	}
}

// each applies f to both sides.
func (r *diffRun) each(f func(*diffSide)) {
	for _, s := range r.sides {
		f(s)
	}
}

// pickKey returns a random key and data value.
func (r *diffRun) pickKey() (ns, name, data string) {
	return []string{"a", "b"}[r.rng.Intn(2)], fmt.Sprintf("o%d", r.rng.Intn(6)), strconv.Itoa(r.rng.Intn(1000))
}

// addHandler registers a recording handler on both informers.
func (r *diffRun) addHandler(resync string) {
	idx := len(r.sides[0].logs)
	r.each(func(s *diffSide) {
		l := &callLog{}
		h := recordingHandler(l)
		// A discarding logger keeps the resync-period warnings quiet.
		logger := logr.Discard()
		options := cache.HandlerOptions{Logger: &logger}
		if resync != "default" {
			d, err := time.ParseDuration(resync)
			if err != nil {
				r.t.Fatal(err)
			}
			options.ResyncPeriod = &d
		}
		reg, err := s.inf.AddEventHandlerWithOptions(h, options)
		if err != nil {
			r.t.Fatalf("%s: add handler: %v", s.name, err)
		}
		s.logs = append(s.logs, l)
		s.regs = append(s.regs, reg)
	})
	r.active = append(r.active, idx)
}

// step performs one random step on both sides and describes it.
func (r *diffRun) step() string {
	src := r.sides[0].src
	switch n := r.rng.Intn(100); {
	case n < 40:
		ns, name, data := r.pickKey()
		r.each(func(s *diffSide) { s.src.put(ns, name, data, false) })
		return fmt.Sprintf("put %s/%s", ns, name)
	case n < 55:
		keys := src.keys()
		if len(keys) == 0 {
			return "nothing to delete"
		}
		ns, name, _ := strings.Cut(keys[r.rng.Intn(len(keys))], "/")
		r.each(func(s *diffSide) { s.src.remove(ns, name, false) })
		return fmt.Sprintf("delete %s/%s", ns, name)
	case n < 63:
		return r.relist(true)
	case n < 70:
		return r.relist(false)
	case n < 80:
		time.Sleep(diffResync)
		return "advance 60s (resync)"
	case n < 85:
		time.Sleep(diffCell)
		return "advance 4s"
	case n < 93:
		resync := []string{"default", "0", "60s", "30s", "500ms"}[r.rng.Intn(5)]
		r.addHandler(resync)
		return fmt.Sprintf("add handler %d resync=%s", len(r.sides[0].logs)-1, resync)
	default:
		if len(r.active) == 0 {
			return "no handler to remove"
		}
		i := r.rng.Intn(len(r.active))
		idx := r.active[i]
		r.active = append(r.active[:i], r.active[i+1:]...)
		shutdown := r.rng.Intn(2) == 0
		r.each(func(s *diffSide) {
			var err error
			if shutdown {
				err = shutDownEventHandler(s.inf, s.regs[idx])
			} else {
				err = s.inf.RemoveEventHandler(s.regs[idx])
			}
			if err != nil {
				r.t.Errorf("%s: remove handler %d: %v", s.name, idx, err)
			}
		})
		return fmt.Sprintf("remove handler %d (shutdown=%t)", idx, shutdown)
	}
}

// relist changes the sources silently, ends both watches (410 Gone or a
// plain close, after which the reflector's new watch from its old resource
// version gets 410 Gone when anything changed) and waits until both
// informers have listed and watch again.
func (r *diffRun) relist(expire bool) string {
	if since := time.Since(r.lastRelist); since < diffRelistGap {
		time.Sleep(diffRelistGap - since)
		synctest.Wait()
	}
	var changes []string
	for range r.rng.Intn(5) {
		ns, name, data := r.pickKey()
		if r.rng.Intn(3) == 0 {
			r.each(func(s *diffSide) { s.src.remove(ns, name, true) })
			changes = append(changes, "-"+ns+"/"+name)
		} else {
			r.each(func(s *diffSide) { s.src.put(ns, name, data, true) })
			changes = append(changes, "+"+ns+"/"+name)
		}
	}
	r.lastRelist = time.Now()
	r.each(func(s *diffSide) {
		if expire {
			s.src.expire()
		} else {
			s.src.closeWatch()
		}
	})
	synctest.Wait()
	for i := 0; ; i++ {
		time.Sleep(diffCell)
		synctest.Wait()
		if r.sides[0].src.watching() && r.sides[1].src.watching() {
			break
		}
		if i == 20 {
			r.t.Fatalf("informers did not relist: client-go watching=%t fanout watching=%t", r.sides[0].src.watching(), r.sides[1].src.watching())
		}
	}
	how := "close"
	if expire {
		how = "410"
	}
	return fmt.Sprintf("relist after %s with changes %v", how, changes)
}

// compare checks handlers, caches and resource versions after a step.
func (r *diffRun) compare(step string) {
	t := r.t
	cg, fo := r.sides[0], r.sides[1]
	for len(r.compared) < len(cg.logs) {
		r.compared = append(r.compared, 0)
	}
	for i := range cg.logs {
		want, got := cg.logs[i].get(), fo.logs[i].get()
		if r.mode == inOrderMode {
			from := r.compared[i]
			r.compared[i] = min(len(want), len(got))
			if d := firstDifference(canonical(want[from:]), canonical(got[from:])); d != "" {
				t.Errorf("after %q: handler %d differs in this step's calls: %s\nclient-go: %q\nfanout:    %q\nscript:\n%s", step, i, d, want, got, strings.Join(r.history, "\n"))
			}
		}
		wk, gk := byKey(want), byKey(got)
		for _, k := range unionKeys(wk, gk) {
			if d := firstDifference(wk[k], gk[k]); d != "" {
				t.Errorf("after %q: handler %d key %s differs: %s\nclient-go: %q\nfanout:    %q\nscript:\n%s", step, i, k, d, wk[k], gk[k], strings.Join(r.history, "\n"))
			}
		}
	}
	if want, got := storeContent(cg.inf.GetStore()), storeContent(fo.inf.GetStore()); firstDifference(want, got) != "" {
		t.Errorf("after %q: caches differ\nclient-go: %q\nfanout:    %q", step, want, got)
	}
	if want, got := cg.inf.LastSyncResourceVersion(), fo.inf.LastSyncResourceVersion(); want != got {
		t.Errorf("after %q: LastSyncResourceVersion client-go %q, fanout %q", step, want, got)
	}
}

// storeContent lists a cache as sorted "key rv=N data transformed" lines.
func storeContent(s cache.Store) []string {
	var out []string
	for _, obj := range s.List() {
		cm := obj.(*corev1.ConfigMap)
		out = append(out, fmt.Sprintf("%s/%s rv=%s v=%s t=%t", cm.Namespace, cm.Name, cm.ResourceVersion, cm.Data["v"], transformed(cm)))
	}
	sort.Strings(out)
	return out
}

// canonical sorts each run of calls whose order comes from iterating the
// cache (a map, in client-go as in fanout) and so differs from run to run
// even within one implementation: initial-list adds replayed to a late
// handler, resync updates (same resource version), and relist tombstones.
// Everything else keeps its order.
func canonical(calls []string) []string {
	class := func(c string) string {
		f := strings.Fields(c)
		switch {
		case len(f) == 4 && f[0] == "add" && f[3] == "initial=true":
			return "initial"
		case len(f) == 3 && f[0] == "update":
			if old, cur, ok := strings.Cut(f[2], "->"); ok && old == cur {
				return "sync"
			}
		case f[0] == "delete" && strings.Contains(c, "tombstone("):
			return "tombstone"
		}
		return ""
	}
	out := append([]string(nil), calls...)
	for i := 0; i < len(out); {
		j := i + 1
		if k := class(out[i]); k != "" {
			for j < len(out) && class(out[j]) == k {
				j++
			}
			sort.Strings(out[i:j])
		}
		i = j
	}
	return out
}

// byKey splits recorded calls by the object key (their second word).
func byKey(calls []string) map[string][]string {
	out := map[string][]string{}
	for _, c := range calls {
		f := strings.Fields(c)
		k := ""
		if len(f) > 1 {
			k = f[1]
		}
		out[k] = append(out[k], c)
	}
	return out
}

func unionKeys(a, b map[string][]string) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// firstDifference describes where want and got first differ, or "".
func firstDifference(want, got []string) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		switch {
		case i >= len(want):
			return fmt.Sprintf("call %d: client-go none, fanout %q", i, got[i])
		case i >= len(got):
			return fmt.Sprintf("call %d: client-go %q, fanout none", i, want[i])
		case want[i] != got[i]:
			return fmt.Sprintf("call %d: client-go %q, fanout %q", i, want[i], got[i])
		}
	}
	return ""
}

// diffSeeds returns the seeds to run: the pinned regression seeds in
// testdata/informer-seeds.txt, then 1..n where n is 20 (5 with -short) or
// the value of FANOUT_DIFF_SEEDS.
func diffSeeds(t *testing.T) []int64 {
	var seeds []int64
	f, err := os.Open("testdata/informer-seeds.txt")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			s, err := strconv.ParseInt(strings.Fields(line)[0], 10, 64)
			if err != nil {
				t.Fatalf("testdata/informer-seeds.txt: %v", err)
			}
			seeds = append(seeds, s)
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 20
	if testing.Short() {
		n = 5
	}
	if v := os.Getenv("FANOUT_DIFF_SEEDS"); v != "" {
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("FANOUT_DIFF_SEEDS: %v", err)
		}
	}
	for i := 1; i <= n; i++ {
		seeds = append(seeds, int64(i))
	}
	return seeds
}

func TestInformerDifferential(t *testing.T) {
	defer reportReplayed(t)
	for _, seed := range diffSeeds(t) {
		for _, mode := range []diffMode{inOrderMode, deltaFIFOMode} {
			t.Run(fmt.Sprintf("%s/seed=%d", mode, seed), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { runInformerDiff(t, seed, mode) })
			})
		}
	}
}

func FuzzInformerDifferential(f *testing.F) {
	for i := int64(1); i <= 4; i++ {
		f.Add(i, i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, seed int64, inOrder bool) {
		mode := deltaFIFOMode
		if inOrder {
			mode = inOrderMode
		}
		synctest.Test(t, func(t *testing.T) { runInformerDiff(t, seed, mode) })
	})
}
