package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kfanout/fanout/informer"
)

// soakHandlerOpts are the handler options the soak uses; client-go
// subjects take only the zero value.
type soakHandlerOpts struct {
	coalesce      bool
	maxPending    int
	workers       int
	recoverPanics bool
}

// soakReg is one handler registered on a soak subject.
type soakReg struct {
	h      *soakHandler
	opts   soakHandlerOpts
	synced func() bool
	stats  func() (informer.ListenerStats, bool)
	remove func() error
}

// soakSubject is one informer in the soak, behind the calls the soak makes.
type soakSubject struct {
	name      string // "<group>/<kind>"
	group     *soakGroup
	kind      string
	lw        *gapLW
	run       func(ctx context.Context)
	hasSynced func() bool
	list      func() []interface{}
	add       func(h *soakHandler, o soakHandlerOpts) (*soakReg, error)
	// fanout is false for client-go's informer (no overload options).
	fanout bool
	// inf is the fanout informer (nil for client-go's).
	inf informer.SharedIndexInformer
	// refused, when set, tells the object versions the subject's index
	// function refuses: the quiescent checks allow those to be missing.
	refused func(key, rv string) bool
	// finalCheck, when set, checks the subject at the end of the run and
	// returns a line for the summary.
	finalCheck func(e *soakEnv) string
	// shards is set for a replica of the sharded group, which is checked
	// with the other replicas at quiescent points (soakShardGroup.check).
	shards *soakShardGroup

	delivered atomic.Int64

	mu   sync.Mutex
	regs []*soakReg // registered now

	cancel context.CancelFunc
	done   chan struct{}
}

// soakGroup is the set of subjects watching one apiserver.
type soakGroup struct {
	name     string // "main" or "nocache"
	cs       kubernetes.Interface
	selector string
	subjects []*soakSubject  // run for the whole soak
	churn    *soakSubject    // stopped and replaced by faults; guarded by soakEnv.mu
	shards   *soakShardGroup // the sharded group's replicas, if the group has one
}

// newGapLW wraps cs's ConfigMap ListWatch for selector in every namespace.
func newGapLW(cs kubernetes.Interface, selector string) *gapLW {
	lw := cache.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", "", selectorModifier(selector))
	wl := cache.ToListerWatcherWithContext(lw)
	unsupported := false
	if u, ok := any(lw).(interface{ IsWatchListSemanticsUnSupported() bool }); ok {
		unsupported = u.IsWatchListSemanticsUnSupported()
	}
	return &gapLW{
		list: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return wl.ListWithContext(ctx, o)
		},
		watch: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return wl.WatchWithContext(ctx, o)
		},
		unsupported: unsupported,
	}
}

// newSoakFanout returns a fanout informer subject.
func newSoakFanout(g *soakGroup, kind string, inOrder bool) *soakSubject {
	lw := newGapLW(g.cs, g.selector)
	inf := informer.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, informer.SharedIndexInformerOptions{InOrder: &inOrder})
	return newSoakFanoutOn(g, kind, inf, lw)
}

// newSoakFanoutOn returns the subject of fanout informer inf, whose
// ListWatch is lw (an empty gapLW when the soak did not build it: its
// relist gaps are then unknown and its watch events not counted).
func newSoakFanoutOn(g *soakGroup, kind string, inf informer.SharedIndexInformer, lw *gapLW) *soakSubject {
	s := &soakSubject{
		name: g.name + "/" + kind, group: g, kind: kind, lw: lw, fanout: true, inf: inf,
		run: inf.RunWithContext, hasSynced: inf.HasSynced, list: inf.GetStore().List,
	}
	_ = inf.SetWatchErrorHandler(func(*informer.Reflector, error) {})
	s.add = func(h *soakHandler, o soakHandlerOpts) (*soakReg, error) {
		opts := informer.HandlerOptions{Name: h.name, MaxPending: o.maxPending, Workers: o.workers, RecoverPanics: o.recoverPanics, BacklogWarnThresholds: []int{-1}}
		if !soakVerbose() {
			// Recovered panics are counted (ListenerStats.Panics) and
			// checked; their stack traces would bury the soak's log.
			opts.Logger = &soakDiscardLogger
		}
		if o.coalesce {
			opts.Overflow = informer.OverflowCoalesce
		}
		reg, err := inf.AddEventHandlerWithOptions(h, opts)
		if err != nil {
			return nil, err
		}
		return &soakReg{
			h: h, opts: o, synced: reg.HasSynced,
			stats:  func() (informer.ListenerStats, bool) { return informer.StatsOf(reg) },
			remove: func() error { return inf.RemoveEventHandler(reg) },
		}, nil
	}
	return s
}

// newSoakClientGo returns client-go's informer as a subject.
func newSoakClientGo(g *soakGroup, kind string) *soakSubject {
	lw := newGapLW(g.cs, g.selector)
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	s := &soakSubject{
		name: g.name + "/" + kind, group: g, kind: kind, lw: lw,
		run: inf.RunWithContext, hasSynced: inf.HasSynced, list: inf.GetStore().List,
	}
	_ = inf.SetWatchErrorHandler(func(*cache.Reflector, error) {})
	s.add = func(h *soakHandler, o soakHandlerOpts) (*soakReg, error) {
		if o != (soakHandlerOpts{}) {
			return nil, fmt.Errorf("client-go has no handler options %+v", o)
		}
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return nil, err
		}
		return plainSoakReg(h, reg.HasSynced, func() error { return inf.RemoveEventHandler(reg) }), nil
	}
	return s
}

// plainSoakReg is a registration without handler options or listener
// stats (client-go's, a sharded replica's).
func plainSoakReg(h *soakHandler, synced func() bool, remove func() error) *soakReg {
	return &soakReg{
		h: h, synced: synced, remove: remove,
		stats: func() (informer.ListenerStats, bool) { return informer.ListenerStats{}, false },
	}
}

// addHandler registers a new soakHandler on s.
func (s *soakSubject) addHandler(name, policy string, compared bool, viol *soakViolations, o soakHandlerOpts) (*soakReg, error) {
	h := newSoakHandler(s.name+"/"+name, policy, compared, viol, func() { s.delivered.Add(1) })
	reg, err := s.add(h, o)
	if err != nil {
		return nil, fmt.Errorf("%s: add handler %s: %w", s.name, name, err)
	}
	s.mu.Lock()
	s.regs = append(s.regs, reg)
	s.mu.Unlock()
	return reg, nil
}

// removeHandler removes reg from s.
func (s *soakSubject) removeHandler(reg *soakReg) error {
	s.mu.Lock()
	for i, r := range s.regs {
		if r == reg {
			s.regs = append(s.regs[:i], s.regs[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	return reg.remove()
}

// registrations returns the handlers registered now.
func (s *soakSubject) registrations() []*soakReg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*soakReg(nil), s.regs...)
}

// soakDiscardLogger discards everything (the listener takes a zero
// Logger for "unset").
var soakDiscardLogger = textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(io.Discard)))

// soakVerbose reports whether FANOUT_SOAK_VERBOSE asks for the informers'
// and handlers' logs, which the faults fill with expected warnings.
func soakVerbose() bool { return os.Getenv("FANOUT_SOAK_VERBOSE") != "" }

// start runs the informer until stop.
func (s *soakSubject) start() {
	base := context.Background()
	if !soakVerbose() {
		base = klog.NewContext(base, klog.Logger{}) // the zero logger discards
	}
	ctx, cancel := context.WithCancel(base)
	s.cancel, s.done = cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		s.run(ctx)
	}()
}

// stop ends the informer and waits for it.
func (s *soakSubject) stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	<-s.done
	s.cancel = nil
}
