package prometheus

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kfanout/fanout/informer"
)

// Names of the sync status metrics (see SyncStatusCollector).
const (
	// MetricSyncState is 1 for the state an informer (label handler
	// empty) or a handler registration is in, labelled with the state
	// (informer.SyncState: "Synced", "ListFailing", "HandlerPending"...).
	MetricSyncState = "informer_sync_state"
	// MetricListFailedAttempts is the number of lists of an informer that
	// failed in a row before it synced (0 once it has).
	MetricListFailedAttempts = "informer_list_failed_attempts"
	// MetricHandlerPendingInitial is the number of initial-list
	// notifications a handler has not returned from.
	MetricHandlerPendingInitial = "informer_handler_pending_initial_notifications"
)

// LabelState holds an informer.SyncState.
const LabelState = "state"

var (
	syncStateDesc = prom.NewDesc(MetricSyncState,
		alphaHelp("1 for the sync state an informer (handler=\"\") or an event handler registration is in."),
		[]string{LabelInformer, LabelHandler, LabelState}, nil)
	listFailedDesc = prom.NewDesc(MetricListFailedAttempts,
		alphaHelp("Number of lists of an informer that failed in a row before it synced."),
		[]string{LabelInformer}, nil)
	pendingInitialDesc = prom.NewDesc(MetricHandlerPendingInitial,
		alphaHelp("Number of initial-list notifications an event handler has not returned from."),
		[]string{LabelInformer, LabelHandler}, nil)
)

// SyncStatusCollector publishes the informer.SyncStatus of the informers
// added to it, read at each scrape: the state of each informer and
// handler registration, an informer's failed list attempts and a
// handler's pending initial notifications. The informer label is the name
// given to Add, the handler label the registration's handler name. Remove
// drops an informer's series at once; an informer that has stopped
// (Shutdown, a factory's RemoveInformer, or the end of its Run) is dropped
// by the first scrape that finds it stopped, as a stopped informer's other
// series are released, and its name can be added again. It is safe for
// concurrent use.
type SyncStatusCollector struct {
	mu        sync.Mutex
	informers map[string]informer.SharedInformer
}

var _ prom.Collector = (*SyncStatusCollector)(nil)

// NewSyncStatusCollector returns an empty collector registered on reg.
func NewSyncStatusCollector(reg prom.Registerer) (*SyncStatusCollector, error) {
	if reg == nil {
		return nil, errNilRegisterer
	}
	c := &SyncStatusCollector{informers: map[string]informer.SharedInformer{}}
	if err := reg.Register(c); err != nil {
		return nil, fmt.Errorf("registering fanout metric: %w", err)
	}
	return c, nil
}

// errDuplicateName is returned by Add for a name already in use.
var errDuplicateName = errors.New("an informer is already added under this name")

// Add publishes inf's sync status under name. It fails for an informer
// fanout did not build and for a name in use by an informer that has not
// stopped (a stopped one is replaced: a factory hands out a fresh informer
// after RemoveInformer).
func (c *SyncStatusCollector) Add(name string, inf informer.SharedInformer) error {
	if _, err := informer.SyncStatusOf(inf); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.informers[name]; ok && !old.IsStopped() {
		return fmt.Errorf("%w: %q", errDuplicateName, name)
	}
	c.informers[name] = inf
	return nil
}

// Remove stops publishing the informer added under name; its series are
// gone from the next scrape. It reports whether name was added.
func (c *SyncStatusCollector) Remove(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.informers[name]
	delete(c.informers, name)
	return ok
}

// Describe sends the three descriptors.
func (c *SyncStatusCollector) Describe(ch chan<- *prom.Desc) {
	ch <- syncStateDesc
	ch <- listFailedDesc
	ch <- pendingInitialDesc
}

// Collect reads the status of every added informer.
func (c *SyncStatusCollector) Collect(ch chan<- prom.Metric) {
	c.mu.Lock()
	names := make([]string, 0, len(c.informers))
	for n := range c.informers {
		names = append(names, n)
	}
	infs := make([]informer.SharedInformer, len(names))
	slices.Sort(names)
	for i, n := range names {
		infs[i] = c.informers[n]
	}
	c.mu.Unlock()
	for i, name := range names {
		if infs[i].IsStopped() {
			c.dropStopped(name, infs[i])
			continue
		}
		st, err := informer.SyncStatusOf(infs[i])
		if err != nil {
			continue
		}
		ch <- prom.MustNewConstMetric(syncStateDesc, prom.GaugeValue, 1, name, "", string(st.State))
		ch <- prom.MustNewConstMetric(listFailedDesc, prom.GaugeValue, float64(st.Attempts), name)
		for _, h := range st.Handlers {
			handler := handlerName(h, st)
			ch <- prom.MustNewConstMetric(syncStateDesc, prom.GaugeValue, 1, name, handler, string(h.State))
			ch <- prom.MustNewConstMetric(pendingInitialDesc, prom.GaugeValue, float64(h.PendingInitial), name, handler)
		}
	}
}

// dropStopped removes the stopped inf from the collector, unless name
// was added again meanwhile.
func (c *SyncStatusCollector) dropStopped(name string, inf informer.SharedInformer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.informers[name] == inf {
		delete(c.informers, name)
	}
}

// handlerName is a registration's handler name: its status's name without
// the informer's.
func handlerName(h, inf informer.SyncStatus) string {
	if len(h.Name) > len(inf.Name) && h.Name[:len(inf.Name)+1] == inf.Name+"/" {
		return h.Name[len(inf.Name)+1:]
	}
	return h.Name
}
