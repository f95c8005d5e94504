package informer

import (
	"path"
	"reflect"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/naming"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kfanout/fanout/internal/clientgorelease"
	"github.com/kfanout/fanout/internal/features"
)

// unspecifiedTypeDescription describes a reflector built with a nil
// expected type.
const unspecifiedTypeDescription = "<unspecified>"

// Watch timeouts are spread at random over [min, max) to spread the load
// of re-watches on the server.
const (
	defaultMinWatchTimeout = 5 * time.Minute
	defaultMaxWatchTimeout = 2 * defaultMinWatchTimeout
)

// Reflector keeps a store up to date with a resource on the server: it
// lists the resource, replaces the store's contents with the list, then
// watches from the listed resource version and applies every event to the
// store. It relists when the watch reports that its resource version has
// expired, re-watches (without a list) when a watch simply ends, and backs
// off between failed attempts. docs/architecture.md shows where it sits
// on the path of an event and which goroutines it starts.
//
// A Reflector is run once, by Run or RunWithContext; the exported fields
// must be set before that.
type Reflector struct {
	// These fields are set by the constructor and not changed after.
	logger          klog.Logger
	name            string
	typeDescription string
	expectedType    reflect.Type
	// expectedGVK is set only when the expected type is an Unstructured
	// with apiVersion and kind.
	expectedGVK     *schema.GroupVersionKind
	store           ReflectorStore
	listerWatcher   ListerWatcherWithContext
	resyncPeriod    time.Duration
	minWatchTimeout time.Duration
	maxWatchTimeout time.Duration
	clock           clock.Clock
	// delay returns the next backoff interval; it is safe for concurrent
	// use and resets itself after two minutes.
	delay        wait.DelayFunc
	useWatchList bool
	// holdInitialRV keeps LastSyncResourceVersion back during a watch's
	// synthetic initial adds (a watch from RV "" or "0"), as client-go does
	// from v0.36; with v0.35 linked every event moves it, as there.
	holdInitialRV bool

	// UseWatchList tells whether ListAndWatch streams the initial list
	// over a watch. The constructors set it from the WatchListClient gate
	// (false for a client without watch-list support); nil means false.
	// It is client-go's field up to v0.34, kept for programs that set it;
	// set it before running the Reflector.
	UseWatchList *bool

	// watchErrorHandler is called by RunWithContext when ListAndWatch
	// fails. The controller sets it before Run through
	// setWatchErrorHandler.
	watchErrorHandler WatchErrorHandlerWithContext

	// paginatedResult is written and read only by the goroutine running
	// ListAndWatch: an initial RV="0" list came back in pages, so the
	// server does not serve it from a watch cache and later lists keep
	// paging.
	paginatedResult bool

	// rvMu guards the two fields below, which other goroutines read
	// through LastSyncResourceVersion.
	rvMu sync.RWMutex
	// lastSyncResourceVersion is the resource version of the last list,
	// watch event or bookmark applied to the store.
	lastSyncResourceVersion string
	// lastSyncResourceVersionUnavailable is true after the server said
	// lastSyncResourceVersion is expired or too new; the next list then
	// uses RV "" (a consistent read).
	lastSyncResourceVersionUnavailable bool

	// watchesStarted counts the watch streams opened (see WatchesStarted).
	watchesStarted atomic.Uint64

	// fill tells how filling the store is going, for SyncStatus.
	fill fillStatus

	// WatchListPageSize is the Limit of each list page. Zero means 500 for
	// lists at RV "" or "0" (or any RV once the server has paged an RV="0"
	// list), and no paging for other resource versions so that the server
	// can answer from its watch cache. Paged lists are served from etcd:
	// set it with care.
	WatchListPageSize int64
	// ShouldResync is consulted every resync period; nil or true makes
	// the reflector call the store's Resync.
	ShouldResync func() bool
	// MaxInternalErrorRetryDuration is how long a watch that keeps ending
	// with an internal server error is re-watched without a relist. Zero
	// means never.
	MaxInternalErrorRetryDuration time.Duration
}

// ResourceVersionUpdater is implemented by stores that want to know each
// resource version the reflector reaches while watching.
type ResourceVersionUpdater interface {
	// UpdateResourceVersion is called with each new resource version.
	UpdateResourceVersion(resourceVersion string)
}

// ReflectorOptions configures NewReflectorWithOptions.
type ReflectorOptions struct {
	// Logger, if not nil, replaces klog.Background(); the reflector's name
	// is added to it.
	Logger *klog.Logger
	// Name is the reflector's name; by default the file:line of the
	// closest caller outside this package.
	Name string
	// TypeDescription describes the expected type in logs; by default the
	// GVK of an Unstructured expected type, the Go type otherwise, or
	// "<unspecified>" for nil.
	TypeDescription string
	// ResyncPeriod is how often the store is resynced; zero means never.
	ResyncPeriod time.Duration
	// MinWatchTimeout is the least watch timeout. Values up to five
	// minutes are ignored; a larger one makes the timeout random in
	// [MinWatchTimeout, 2*MinWatchTimeout).
	MinWatchTimeout time.Duration
	// Clock measures every delay and timeout; clock.RealClock{} if nil.
	Clock clock.Clock
	// Backoff replaces the default backoff (800ms doubling to 30s, jitter
	// 1.0). It is reset after two minutes either way.
	Backoff *wait.Backoff
}

// NewReflector returns a Reflector named after its caller's file:line.
// See NewReflectorWithOptions.
func NewReflector(lw ListerWatcher, expectedType any, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	return NewReflectorWithOptions(lw, expectedType, store, ReflectorOptions{ResyncPeriod: resyncPeriod})
}

// NewNamedReflector returns a Reflector with the given name. See
// NewReflectorWithOptions.
func NewNamedReflector(name string, lw ListerWatcher, expectedType any, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	return NewReflectorWithOptions(lw, expectedType, store, ReflectorOptions{Name: name, ResyncPeriod: resyncPeriod})
}

// NewReflectorWithOptions returns a Reflector that keeps store up to date
// through lw. Only objects of expectedType's Go type (and, for an
// Unstructured with apiVersion and kind, of its GVK) reach the store;
// others are dropped with an error log. A nil expectedType accepts
// everything.
//
// The reflector streams its initial list over a watch (watch-list) when
// the WatchListClient feature gate is on, unless lw has a method
// IsWatchListSemanticsUnSupported() bool that returns true.
func NewReflectorWithOptions(lw ListerWatcher, expectedType any, store ReflectorStore, options ReflectorOptions) *Reflector {
	c := options.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	minTimeout, maxTimeout := defaultMinWatchTimeout, defaultMaxWatchTimeout
	if options.MinWatchTimeout > defaultMinWatchTimeout {
		minTimeout, maxTimeout = options.MinWatchTimeout, 2*options.MinWatchTimeout
	}
	r := &Reflector{
		name:              options.Name,
		typeDescription:   options.TypeDescription,
		expectedType:      reflect.TypeOf(expectedType),
		expectedGVK:       expectedGVKOf(expectedType),
		store:             store,
		listerWatcher:     ToListerWatcherWithContext(lw),
		resyncPeriod:      options.ResyncPeriod,
		minWatchTimeout:   minTimeout,
		maxWatchTimeout:   maxTimeout,
		clock:             c,
		delay:             newBackoffDelay(options.Backoff, c),
		watchErrorHandler: DefaultWatchErrorHandler,
		holdInitialRV:     !clientgorelease.Before(36),
	}
	if r.name == "" {
		r.name = naming.GetNameFromCallsite(reflectorNameSkips...)
	}
	if r.typeDescription == "" {
		r.typeDescription = typeDescriptionOf(expectedType)
	}
	logger := klog.Background()
	if options.Logger != nil {
		logger = *options.Logger
	}
	r.logger = klog.LoggerWithName(logger, r.name)

	r.useWatchList = features.Enabled(features.WatchListClient)
	if r.useWatchList && watchListUnsupported(lw) {
		r.logger.V(2).Info("The client used to build this informer/reflector doesn't support WatchList semantics. The feature will be disabled. This is expected in unit tests but not in production.",
			"feature", features.WatchListClient)
		r.useWatchList = false
	}
	r.UseWatchList = &r.useWatchList
	return r
}

// reflectorNameSkips are the call sites that make poor default names:
// the files of this package, which build reflectors for informers.
var reflectorNameSkips = []string{packageDir()}

// packageDir returns this package's source directory with a trailing
// slash, as the runtime reports file names.
func packageDir() string {
	_, file, _, ok := goruntime.Caller(0)
	if !ok {
		return "fanout/informer/"
	}
	return path.Dir(file) + "/"
}

// watchListUnsupported reports whether client says it cannot serve
// watch-list requests, through the method client-go's
// watchlist.DoesClientNotSupportWatchListSemantics looks for.
func watchListUnsupported(client any) bool {
	c, ok := client.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && c.IsWatchListSemanticsUnSupported()
}

func typeDescriptionOf(expectedType any) string {
	if expectedType == nil {
		return unspecifiedTypeDescription
	}
	if gvk := expectedGVKOf(expectedType); gvk != nil {
		return gvk.String()
	}
	return reflect.TypeOf(expectedType).String()
}

func expectedGVKOf(expectedType any) *schema.GroupVersionKind {
	u, ok := expectedType.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	gvk := u.GroupVersionKind()
	if gvk.Empty() {
		return nil
	}
	return &gvk
}

// Name returns the reflector's name.
func (r *Reflector) Name() string { return r.name }

// TypeDescription describes the type the reflector expects, for logs.
func (r *Reflector) TypeDescription() string { return r.typeDescription }

// setWatchErrorHandler replaces the handler RunWithContext calls when
// ListAndWatch fails. The controller calls it before Run; a nil handler
// leaves the current one.
func (r *Reflector) setWatchErrorHandler(h WatchErrorHandlerWithContext) {
	if h != nil {
		r.watchErrorHandler = h
	}
}

// setShouldResync sets ShouldResync; it is the controller's hook,
// equivalent to assigning the field before Run.
func (r *Reflector) setShouldResync(f func() bool) { r.ShouldResync = f }

// LastSyncResourceVersion returns the resource version of the last list,
// watch event or bookmark the reflector applied. It is safe to call
// concurrently, but is not synchronised with the store: the store may be
// ahead of or behind it.
func (r *Reflector) LastSyncResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	return r.lastSyncResourceVersion
}

func (r *Reflector) setLastSyncResourceVersion(v string) {
	r.rvMu.Lock()
	defer r.rvMu.Unlock()
	r.lastSyncResourceVersion = v
}

func (r *Reflector) setLastSyncResourceVersionUnavailable(unavailable bool) {
	r.rvMu.Lock()
	defer r.rvMu.Unlock()
	r.lastSyncResourceVersionUnavailable = unavailable
}

// relistResourceVersion is the RV of the next list: "" (a consistent
// read) after the last one was refused as expired or too new, "0" (any
// cached state) before anything was synced, otherwise the last RV, so
// that the list is never older than what the store already saw.
func (r *Reflector) relistResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	switch {
	case r.lastSyncResourceVersionUnavailable:
		return ""
	case r.lastSyncResourceVersion == "":
		return "0"
	default:
		return r.lastSyncResourceVersion
	}
}

// rewatchResourceVersion is the RV a watch-list stream starts from: ""
// (most recent, consistent) after a refusal, otherwise the last RV.
func (r *Reflector) rewatchResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	if r.lastSyncResourceVersionUnavailable {
		return ""
	}
	return r.lastSyncResourceVersion
}
