package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/informer"
)

// The load phase comes after the faults: soakLoadHandlers handlers join
// the main group's fanout informer, the write rate is ramped up (1, 2, 4,
// ... writers, each updating its own ConfigMap as fast as the apiserver
// answers) until the apiserver degrades, and the best rate found is held
// for the rest of the phase. Every subject sees these writes (they carry
// the soak's label). Then:
//
//   - load-lag: the handlers' lag returns to its baseline: a probe write
//     reaches all load handlers within soakLoadLagFactor times the
//     baseline probe's time (measured before the phase), or the baseline
//     plus soakLoadLagSlack, and none has pending notifications, within
//     60 s of the end of the writes;
//   - load-heap: the heap (after a GC) is within soakLoadHeapSlack of its
//     size before the phase, plus what the soak's recorders keep of the
//     phase: soakLoadBytesPerCall per recorded handler call and
//     soakLoadBytesPerTrace per sharded replica trace line;
//   - and the quiescent check that follows ("after-load") holds every
//     subject to the server's list, as the others do.
const (
	soakLoadHandlers   = 100
	soakLoadMaxWriters = 64
	// soakLoadKeys are the load phase's ConfigMaps: one per writer and
	// the probe.
	soakLoadKeys          = soakLoadMaxWriters + 1
	soakLoadLagFactor     = 3
	soakLoadLagSlack      = 500 * time.Millisecond
	soakLoadHeapSlack     = 16 << 20
	soakLoadBytesPerCall  = 64
	soakLoadBytesPerTrace = 512
)

// soakLoadDuration is the load phase's share of a soak of duration d: a
// sixth, at least 20 s (a 2-minute soak spends 20 s in it).
func soakLoadDuration(d time.Duration) time.Duration { return max(d/6, 20*time.Second) }

// soakLoadStep is one step of the ramp.
type soakLoadStep struct {
	Writers int     `json:"writers"`
	Rate    float64 `json:"writes_per_s"`
	P50MS   float64 `json:"p50_ms"`
	P99MS   float64 `json:"p99_ms"`
	Errors  int     `json:"errors"`
	Why     string  `json:"stopped_ramp,omitempty"`
}

// soakLoadResult is the load phase's figures.
type soakLoadResult struct {
	Handlers      int            `json:"handlers"`
	Steps         []soakLoadStep `json:"ramp"`
	Hold          soakLoadStep   `json:"hold"`
	HoldSeconds   float64        `json:"hold_s"`
	BaseLagMS     float64        `json:"baseline_lag_ms"`
	PeakLagMS     float64        `json:"peak_lag_ms"`
	LagAfterMS    float64        `json:"lag_after_ms"`
	RecoveredInS  float64        `json:"lag_recovered_in_s"`
	MaxPending    int64          `json:"max_pending"`
	HeapBefore    uint64         `json:"heap_before_bytes"`
	HeapAfter     uint64         `json:"heap_after_bytes"`
	HeapAllowed   uint64         `json:"heap_allowed_bytes"`
	RecordedCalls int64          `json:"recorded_calls"`
	TraceLines    int            `json:"trace_lines"`
}

// soakLoadHandler is one of the load handlers: it counts its calls, and
// records the newest probe version it saw and the peak lag of the
// writers' objects (their "t" is the write's start).
type soakLoadHandler struct {
	probe   string // key of the probe object
	peak    *atomic.Int64
	probeRV atomic.Int64
}

func (h *soakLoadHandler) saw(obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	if cmKey(cm) == h.probe {
		h.probeRV.Store(parseRV(cm.ResourceVersion))
	}
	if t, err := strconv.ParseInt(cm.Data["t"], 10, 64); err == nil {
		lag := time.Now().UnixNano() - t
		for {
			old := h.peak.Load()
			if lag <= old || h.peak.CompareAndSwap(old, lag) {
				break
			}
		}
	}
}

func (h *soakLoadHandler) OnAdd(obj any, _ bool)   { h.saw(obj) }
func (h *soakLoadHandler) OnUpdate(_, newObj any)  { h.saw(newObj) }
func (h *soakLoadHandler) OnDelete(any)            {}
func (e *soakEnv) loadKey(i int) (ns, name string) { return e.wl.ns[0], fmt.Sprintf("load-%02d", i) }

// soakRecorded counts what the soak's recorders hold: handler calls of
// every subject, and the sharded replicas' trace lines.
func (e *soakEnv) soakRecorded() (calls int64, lines int) {
	for _, s := range e.allSubjects() {
		calls += s.delivered.Load()
	}
	for _, g := range e.groups {
		if g.shards == nil {
			continue
		}
		for _, p := range g.shards.traces {
			p.mu.Lock()
			lines += len(p.lines)
			p.mu.Unlock()
		}
	}
	return calls, lines
}

// loadPhase runs the load phase for d and checks its invariants.
func (e *soakEnv) loadPhase(d time.Duration) *soakLoadResult {
	ctx := context.Background()
	res := &soakLoadResult{Handlers: soakLoadHandlers}
	cms := func(ns string) interface {
		Create(context.Context, *corev1.ConfigMap, metav1.CreateOptions) (*corev1.ConfigMap, error)
		Update(context.Context, *corev1.ConfigMap, metav1.UpdateOptions) (*corev1.ConfigMap, error)
		Get(context.Context, string, metav1.GetOptions) (*corev1.ConfigMap, error)
	} {
		return e.admin.CoreV1().ConfigMaps(ns)
	}
	objs := make([]*corev1.ConfigMap, soakLoadKeys)
	for i := range objs {
		ns, name := e.loadKey(i)
		cm, err := cms(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{setLabel: e.wl.in}},
		}, metav1.CreateOptions{})
		if err != nil {
			e.viol.add("setup", "load phase: "+err.Error())
			return res
		}
		objs[i] = cm
	}
	probeNS, probeName := e.loadKey(soakLoadMaxWriters)
	probe := objs[soakLoadMaxWriters]

	// The handlers join the main group's fanout informer.
	var target *soakSubject
	for _, s := range e.groups[0].subjects {
		if s.kind == "fanout" {
			target = s
		}
	}
	var peak atomic.Int64
	handlers := make([]*soakLoadHandler, soakLoadHandlers)
	regs := make([]informer.ResourceEventHandlerRegistration, soakLoadHandlers)
	for i := range handlers {
		handlers[i] = &soakLoadHandler{probe: probeNS + "/" + probeName, peak: &peak}
		reg, err := target.inf.AddEventHandlerWithOptions(handlers[i], informer.HandlerOptions{
			Name: fmt.Sprintf("load-%03d", i), Logger: &soakDiscardLogger, BacklogWarnThresholds: []int{-1}})
		if err != nil {
			e.viol.add("setup", "load phase: "+err.Error())
			return res
		}
		regs[i] = reg
	}
	defer func() {
		for _, reg := range regs {
			_ = target.inf.RemoveEventHandler(reg)
		}
	}()
	eventually(e.t, 60*time.Second, "load handlers synced", func() string {
		for i, reg := range regs {
			if !reg.HasSynced() {
				return fmt.Sprintf("load-%03d not synced", i)
			}
		}
		return ""
	})

	// probeLag writes the probe and returns how long until every load
	// handler saw it (at most limit).
	probeLag := func(limit time.Duration) (time.Duration, error) {
		start := time.Now()
		probe.Data = map[string]string{"probe": strconv.FormatInt(start.UnixNano(), 10)}
		cm, err := cms(probeNS).Update(ctx, probe, metav1.UpdateOptions{})
		if err != nil {
			if fresh, gerr := cms(probeNS).Get(ctx, probeName, metav1.GetOptions{}); gerr == nil {
				probe = fresh
			}
			return 0, err
		}
		probe = cm
		rv := parseRV(cm.ResourceVersion)
		for {
			all := true
			for _, h := range handlers {
				if h.probeRV.Load() < rv {
					all = false
					break
				}
			}
			if all {
				return time.Since(start), nil
			}
			if time.Since(start) > limit {
				return time.Since(start), fmt.Errorf("probe not seen by every load handler after %v", limit)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	var base []time.Duration
	for range 5 {
		if lag, err := probeLag(30 * time.Second); err == nil {
			base = append(base, lag)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(base) == 0 {
		e.viol.add("load-lag", "no baseline probe reached the load handlers")
		return res
	}
	slices.Sort(base)
	baseLag := base[len(base)/2]
	res.BaseLagMS = ms(baseLag)
	before := takeSoakBaseline()
	res.HeapBefore = before.HeapBytes
	calls0, lines0 := e.soakRecorded()

	// Sample the load handlers' pending notifications while writing.
	sctx, stopSampling := context.WithCancel(ctx)
	var sampled sync.WaitGroup
	sampled.Go(func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-tick.C:
			}
			for _, reg := range regs {
				if st, ok := informer.StatsOf(reg); ok && st.Pending > res.MaxPending {
					res.MaxPending = st.Pending
				}
			}
		}
	})

	// The ramp doubles the writers until a step degrades (more than 1%
	// errors, or a p99 latency above max(1 s, 5 times the first step's))
	// or two steps in a row gain less than 10% on the best rate, and
	// holds the best step's writers; the machine's other jobs make single
	// steps noisy.
	start := time.Now()
	stepDur := max(2*time.Second, d/20)
	best := soakLoadStep{}
	var firstP99 float64
	flat := 0
	for n := 1; n <= soakLoadMaxWriters; n *= 2 {
		if time.Since(start)+stepDur > d*2/3 {
			break
		}
		st := e.loadWriters(ctx, objs[:n], stepDur)
		switch {
		case n == 1:
			firstP99 = st.P99MS
		case st.Errors*100 > int(st.Rate*stepDur.Seconds()):
			st.Why = "errors above 1%"
		case st.P99MS > max(1000, 5*firstP99):
			st.Why = fmt.Sprintf("p99 latency above max(1 s, 5x the first step's %.0f ms)", firstP99)
		}
		if st.Why == "" && st.Rate < 1.1*best.Rate {
			if flat++; flat == 2 {
				st.Why = "two steps up less than 10% on the best rate"
			}
		} else if st.Why == "" {
			flat = 0
		}
		res.Steps = append(res.Steps, st)
		e.logf("soak: load ramp: %d writers: %.0f writes/s, p50 %.0f ms, p99 %.0f ms, %d errors %s", st.Writers, st.Rate, st.P50MS, st.P99MS, st.Errors, st.Why)
		if st.Rate > best.Rate && (st.Why == "" || flat == 2) {
			best = st
		}
		if st.Why != "" {
			break
		}
	}
	hold := d - time.Since(start)
	res.HoldSeconds = hold.Seconds()
	res.Hold = e.loadWriters(ctx, objs[:best.Writers], hold)
	stopSampling()
	sampled.Wait()
	res.PeakLagMS = float64(peak.Load()) / 1e6
	e.logf("soak: load phase: sustained %.0f writes/s with %d writers for %.0fs (p50 %.0f ms, p99 %.0f ms, %d errors), %d handlers on %s, peak handler lag %.0f ms, max pending %d",
		res.Hold.Rate, res.Hold.Writers, res.HoldSeconds, res.Hold.P50MS, res.Hold.P99MS, res.Hold.Errors, soakLoadHandlers, target.name, res.PeakLagMS, res.MaxPending)

	// Lag back to baseline.
	limit := max(soakLoadLagFactor*baseLag, baseLag+soakLoadLagSlack)
	end := time.Now()
	var lag time.Duration
	var why string
	for {
		var err error
		lag, err = probeLag(30 * time.Second)
		pending := int64(0)
		for _, reg := range regs {
			if st, ok := informer.StatsOf(reg); ok {
				pending = max(pending, st.Pending)
			}
		}
		switch {
		case err != nil:
			why = err.Error()
		case lag > limit:
			why = fmt.Sprintf("probe took %v, baseline %v, limit %v", lag.Round(time.Millisecond), baseLag.Round(time.Millisecond), limit.Round(time.Millisecond))
		case pending > 0:
			why = fmt.Sprintf("a load handler has %d pending notifications", pending)
		default:
			why = ""
		}
		if why == "" || time.Since(end) > 60*time.Second {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	res.LagAfterMS, res.RecoveredInS = ms(lag), time.Since(end).Seconds()
	if why != "" {
		e.viol.add("load-lag", "60 s after the load phase: "+why)
	}

	// Heap back to its size before, plus what the recorders kept.
	calls1, lines1 := e.soakRecorded()
	res.RecordedCalls, res.TraceLines = calls1-calls0, lines1-lines0
	res.HeapAllowed = res.HeapBefore + soakLoadHeapSlack + uint64(res.RecordedCalls)*soakLoadBytesPerCall + uint64(res.TraceLines)*soakLoadBytesPerTrace
	for deadline := time.Now().Add(30 * time.Second); ; {
		res.HeapAfter = takeSoakBaseline().HeapBytes
		if res.HeapAfter <= res.HeapAllowed || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if res.HeapAfter > res.HeapAllowed {
		e.viol.add("load-heap", fmt.Sprintf("heap %d MiB after the load phase, %d MiB before, %d MiB allowed", res.HeapAfter>>20, res.HeapBefore>>20, res.HeapAllowed>>20))
	}
	e.logf("soak: load phase: lag back to %.0f ms (baseline %.0f ms) in %.1fs; heap %d MiB before, %d MiB after (allowed %d MiB: %d recorded calls, %d trace lines)",
		res.LagAfterMS, res.BaseLagMS, res.RecoveredInS, res.HeapBefore>>20, res.HeapAfter>>20, res.HeapAllowed>>20, res.RecordedCalls, res.TraceLines)
	return res
}

// loadWriters runs one writer per object in objs, each updating its object
// as fast as the apiserver answers, for d, and returns the step's figures.
// objs[i] is replaced by the newest version written.
func (e *soakEnv) loadWriters(ctx context.Context, objs []*corev1.ConfigMap, d time.Duration) soakLoadStep {
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var wg sync.WaitGroup
	start := time.Now()
	stopAt := start.Add(d)
	for i := range objs {
		wg.Go(func() {
			cms := e.admin.CoreV1().ConfigMaps(objs[i].Namespace)
			var mine []time.Duration
			bad := 0
			for time.Now().Before(stopAt) {
				t := time.Now()
				cm := objs[i].DeepCopy()
				cm.Data = map[string]string{"t": strconv.FormatInt(t.UnixNano(), 10)}
				out, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
				if err != nil {
					bad++
					if apierrors.IsConflict(err) {
						if fresh, gerr := cms.Get(ctx, cm.Name, metav1.GetOptions{}); gerr == nil {
							objs[i] = fresh
						}
					}
					continue
				}
				mine = append(mine, time.Since(t))
				objs[i] = out
			}
			mu.Lock()
			lat = append(lat, mine...)
			errs += bad
			mu.Unlock()
		})
	}
	wg.Wait()
	took := time.Since(start)
	slices.Sort(lat)
	q := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return ms(lat[min(len(lat)-1, int(p*float64(len(lat))))])
	}
	return soakLoadStep{Writers: len(objs), Rate: float64(len(lat)) / took.Seconds(), P50MS: q(0.5), P99MS: q(0.99), Errors: errs}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
