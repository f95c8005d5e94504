package e2e

import (
	"context"
	"fmt"
	"math/rand"
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
	"k8s.io/client-go/rest"
)

// The soak's HTTP/2 connection health check (client-go reads these
// variables when it builds a transport): a silent apiserver is given up on
// after about read-idle + ping seconds, so pauses longer than that end the
// watches on it.
const (
	soakHTTP2ReadIdle = 10
	soakHTTP2Ping     = 5
)

// soakConfig is read from the environment (see hack/e2e/soak.sh).
type soakConfig struct {
	duration time.Duration
	seed     int64
	rate     float64
	keys     int
	report   string // directory
}

func soakConfigFromEnv(t *testing.T) soakConfig {
	t.Helper()
	d := os.Getenv("FANOUT_SOAK_DURATION")
	if d == "" {
		t.Skip("FANOUT_SOAK_DURATION not set: run `make soak` (or `make e2e`, which soaks for 2 minutes)")
	}
	cfg := soakConfig{rate: 40, keys: 400, seed: time.Now().UnixNano() % 1_000_000}
	var err error
	if cfg.duration, err = time.ParseDuration(d); err != nil {
		t.Fatalf("FANOUT_SOAK_DURATION: %v", err)
	}
	if v := os.Getenv("FANOUT_SOAK_SEED"); v != "" {
		if cfg.seed, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("FANOUT_SOAK_SEED: %v", err)
		}
	}
	if v := os.Getenv("FANOUT_SOAK_RATE"); v != "" {
		if cfg.rate, err = strconv.ParseFloat(v, 64); err != nil || cfg.rate <= 0 {
			t.Fatalf("FANOUT_SOAK_RATE %q: want a positive number", v)
		}
	}
	cfg.report = os.Getenv("FANOUT_SOAK_REPORT")
	if cfg.report == "" {
		cfg.report = filepath.Join(os.TempDir(), fmt.Sprintf("fanout-soak-%d", cfg.seed))
	}
	return cfg
}

// soakEnv is one soak run.
type soakEnv struct {
	t      *testing.T
	cfg    soakConfig
	start  time.Time
	c      *cluster
	admin  kubernetes.Interface // on main
	procs  *soakProcs
	rbac   *soakRBAC
	inj    *soakInjector
	viol   *soakViolations
	wl     *soakWorkload
	groups []*soakGroup

	churnMu  sync.Mutex // one churn restart at a time
	mu       sync.Mutex
	churnGen int
	chaosN   int
	retired  []*soakReg // removed handlers, and those of stopped informers
	floods   []*soakPanicFlood
	stopped  []*soakSubject
	samples  []soakSample
	checks   []soakQuiescent
	load     *soakLoadResult
}

func (e *soakEnv) since() float64 { return time.Since(e.start).Seconds() }

func (e *soakEnv) logf(format string, args ...any) { e.t.Logf(format, args...) }

// soakRestConfig returns kubeconfig file's config with its own transport
// (DisableCompression is part of client-go's transport cache key), so that
// the HTTP/2 health check settings apply; token, when set, replaces the
// kubeconfig's.
func soakRestConfig(t *testing.T, c *cluster, file, token string) *rest.Config {
	cfg := c.config(t, file)
	cfg.DisableCompression = true
	if token != "" {
		cfg.BearerToken = token
	}
	return cfg
}

// TestSoak runs the soak: a seeded random workload of ConfigMap writes,
// faults injected into the apiservers, etcd, RBAC, handlers and informers,
// and fanout's informers next to client-go's on both apiservers, with the
// invariants of soak_check_test.go checked as it runs and at the end. It
// writes a JSON report, a summary and a PNG timeline to FANOUT_SOAK_REPORT.
func TestSoak(t *testing.T) {
	cfg := soakConfigFromEnv(t)
	c := needCluster(t)
	if c.ctl == "" {
		t.Skip("FANOUT_E2E_CTL not set: the soak needs to control the servers")
	}
	t.Setenv("HTTP2_READ_IDLE_TIMEOUT_SECONDS", strconv.Itoa(soakHTTP2ReadIdle))
	t.Setenv("HTTP2_PING_TIMEOUT_SECONDS", strconv.Itoa(soakHTTP2Ping))
	t.Logf("soak: seed %d (FANOUT_SOAK_SEED=%d reruns this workload and fault schedule), duration %v, %.0f writes/s, report in %s",
		cfg.seed, cfg.seed, cfg.duration, cfg.rate, cfg.report)
	if err := os.MkdirAll(cfg.report, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := runID(t)
	limited, err := os.ReadFile(filepath.Join(c.dir, "pki", "limited.token"))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(limited))
	mk := func(file, token string) *kubernetes.Clientset {
		cs, err := kubernetes.NewForConfig(soakRestConfig(t, c, file, token))
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	adminMain, adminNocache := mk("kubeconfig", ""), mk("kubeconfig-nocache", "")
	e := &soakEnv{t: t, cfg: cfg, c: c, admin: adminMain}
	e.start = time.Now()
	e.viol = newSoakViolations(e.start)
	e.procs = newSoakProcs(c, e.viol)
	e.rbac = &soakRBAC{admin: adminMain, name: "soak-" + id}
	e.inj = &soakInjector{env: e}
	if err := e.rbac.setup(ctx); err != nil {
		t.Fatalf("rbac: %v", err)
	}
	t.Cleanup(func() { e.rbac.teardown(context.Background()) })
	t.Cleanup(func() {
		if err := e.procs.restore(); err != nil {
			t.Errorf("restoring the servers: %v", err)
		}
	})

	e.wl = &soakWorkload{
		clients: []kubernetes.Interface{adminMain, adminNocache},
		usable:  func(i int) bool { return e.procs.serving([]string{"main", "nocache"}[i]) },
		keys:    cfg.keys, in: "soak-" + id + "-in", out: "soak-" + id + "-out",
		rate: cfg.rate, seed: cfg.seed,
	}
	for i := 0; i < soakNS; i++ {
		e.wl.ns = append(e.wl.ns, fmt.Sprintf("soak-%s-%d", id, i))
		createNamespace(ctx, t, adminMain, e.wl.ns[i])
	}
	// Half the keys exist before the informers start.
	err = parallel(cfg.keys/2, 8, func(i int) error {
		ns, name := e.wl.keyName(2 * i)
		_, err := adminMain.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{setLabel: e.wl.in}},
			Data:       map[string]string{"v": "0"},
		}, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("initial objects: %v", err)
	}
	selector := setLabel + "=" + e.wl.in
	for _, gc := range []struct{ name, file string }{{"main", "kubeconfig"}, {"nocache", "kubeconfig-nocache"}} {
		e.groups = append(e.groups, &soakGroup{name: gc.name, cs: mk(gc.file, token), selector: selector})
	}
	base := takeSoakBaseline()
	e.startSubjects()
	e.run()
	e.finish(base)
}

// startSubjects builds every group's subjects and their permanent handlers,
// starts them and waits until they have synced.
func (e *soakEnv) startSubjects() {
	t := e.t
	for _, g := range e.groups {
		ref := newSoakClientGo(g, "client-go")
		def := newSoakFanout(g, "fanout", false)
		ord := newSoakFanout(g, "fanout-inorder", true)
		coal := newSoakFanout(g, "fanout-coalesce-workers", false)
		g.subjects = []*soakSubject{ref, def, ord, coal}
		must := func(_ *soakReg, err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(ref.addHandler("ref", "grow", false, e.viol, soakHandlerOpts{}))
		must(def.addHandler("grow", "grow", true, e.viol, soakHandlerOpts{}))
		must(ord.addHandler("grow", "grow", true, e.viol, soakHandlerOpts{}))
		must(coal.addHandler("coalesce", "coalesce", false, e.viol, soakHandlerOpts{coalesce: true, maxPending: soakMaxPending, workers: 4, recoverPanics: true}))
		must(coal.addHandler("grow-workers", "grow", true, e.viol, soakHandlerOpts{workers: 4}))
		g.subjects = append(g.subjects, soakExtraSubjects(e, g)...)
		flood, err := addPanicFlood(def)
		if err != nil {
			t.Fatal(err)
		}
		e.floods = append(e.floods, flood)
		g.churn = e.newChurn(g)
		for _, s := range append(g.subjects, g.churn) {
			s.start()
		}
	}
	eventually(t, 120*time.Second, "soak informers and handlers synced", func() string {
		for _, g := range e.groups {
			for _, s := range append(g.subjects, g.churn) {
				if !s.hasSynced() {
					return s.name + " not synced"
				}
				for _, r := range s.registrations() {
					if !r.synced() {
						return r.h.name + " not synced"
					}
				}
			}
		}
		return ""
	})
	e.logf("soak: %d subjects synced after %.1fs", len(e.groups)*(len(e.groups[0].subjects)+1), e.since())
}

const soakMaxPending = 64

// newChurn returns a new fanout informer for g's churn slot, with a handler.
func (e *soakEnv) newChurn(g *soakGroup) *soakSubject {
	e.mu.Lock()
	e.churnGen++
	n := e.churnGen
	e.mu.Unlock()
	s := newSoakFanout(g, "churn", n%2 == 0)
	if _, err := s.addHandler(fmt.Sprintf("grow-%d", n), "grow", false, e.viol, soakHandlerOpts{}); err != nil {
		e.viol.add("setup", err.Error())
	}
	return s
}

// restartChurn stops g's churn informer and starts a new one.
func (e *soakEnv) restartChurn(g *soakGroup) {
	e.churnMu.Lock()
	defer e.churnMu.Unlock()
	e.mu.Lock()
	old := g.churn
	e.mu.Unlock()
	old.stop()
	s := e.newChurn(g)
	s.start()
	e.mu.Lock()
	g.churn = s
	e.stopped = append(e.stopped, old)
	e.retired = append(e.retired, old.registrations()...)
	e.mu.Unlock()
}

// churnOf returns g's current churn informer.
func (e *soakEnv) churnOf(g *soakGroup) *soakSubject {
	e.mu.Lock()
	defer e.mu.Unlock()
	return g.churn
}

// addChaosHandler adds a handler with random options to s.
func (e *soakEnv) addChaosHandler(rng *rand.Rand, s *soakSubject, f *soakFault) error {
	e.mu.Lock()
	e.chaosN++
	name := fmt.Sprintf("chaos-%d", e.chaosN)
	e.mu.Unlock()
	o := soakHandlerOpts{}
	policy := "grow"
	if s.fanout {
		o.recoverPanics = true
		if rng.Intn(2) == 0 {
			o.workers = 2
		}
		if rng.Intn(3) == 0 {
			o.coalesce, o.maxPending, policy = true, 16, "coalesce"
		}
	}
	f.Kind, f.Target = "handler-add", s.name+"/"+name
	f.Detail = fmt.Sprintf("%s, workers %d, recover panics %t", policy, o.workers, o.recoverPanics)
	_, err := s.addHandler(name, policy, false, e.viol, o)
	return err
}

// removeChaosHandler removes one of s's chaos handlers.
func (e *soakEnv) removeChaosHandler(rng *rand.Rand, s *soakSubject, f *soakFault) error {
	f.Kind = "handler-remove"
	var cands []*soakReg
	for _, r := range s.registrations() {
		if strings.Contains(r.h.name, "/chaos-") {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 {
		return e.addChaosHandler(rng, s, f)
	}
	r := cands[rng.Intn(len(cands))]
	f.Target = r.h.name
	e.mu.Lock()
	e.retired = append(e.retired, r)
	e.mu.Unlock()
	return s.removeHandler(r)
}

// finalChecks runs the end-of-run checks of the panic floods and of the
// subjects that have one, and returns their summary lines.
func (e *soakEnv) finalChecks() []string {
	var out []string
	for _, f := range e.floods {
		out = append(out, f.check(e))
	}
	for _, s := range e.allSubjects() {
		if s.finalCheck != nil {
			out = append(out, s.finalCheck(e))
		}
	}
	return out
}

// run drives the workload and the faults for the configured duration, with
// a quiescent check every period.
func (e *soakEnv) run() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	goRun := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	tokens := pacer(ctx, e.cfg.rate)
	goRun(func() { e.wl.run(ctx, tokens) })
	procRng := rand.New(rand.NewSource(e.cfg.seed + 1))
	handRng := rand.New(rand.NewSource(e.cfg.seed + 2))
	// The load phase (soak_load_test.go) takes the end of the duration.
	deadline := e.start.Add(e.cfg.duration - soakLoadDuration(e.cfg.duration))
	// No process fault starts in the last 15s, so that the final check
	// does not mostly wait for reconnection backoffs.
	goRun(func() {
		e.inj.lane(ctx, procRng, 4*time.Second, 10*time.Second, deadline.Add(-15*time.Second), e.inj.processFaults())
	})
	goRun(func() { e.inj.lane(ctx, handRng, 1*time.Second, 4*time.Second, deadline, e.inj.handlerFaults()) })
	goRun(func() { e.sampler(ctx) })

	period := max(30*time.Second, e.cfg.duration/8)
	for {
		next := time.Now().Add(period)
		if next.After(deadline.Add(-period / 2)) {
			break
		}
		time.Sleep(time.Until(next))
		e.quiesce("periodic")
	}
	time.Sleep(time.Until(deadline))
	cancel()
	wg.Wait()
	if err := e.procs.restore(); err != nil {
		e.viol.add("process-crash", "restore: "+err.Error())
	}
	if err := e.rbac.grant(context.Background()); err != nil {
		e.viol.add("setup", "grant: "+err.Error())
	}
	e.logf("soak: workload and faults stopped at %.1fs", e.since())
	e.quiesce("final")
	e.load = e.loadPhase(soakLoadDuration(e.cfg.duration))
	e.quiesce("after-load")
}
