package sharding

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/internal/listprobe"
)

// rangeListerWatcher lists and watches one range: every request carries
// the range's ListOptions.ShardSelector. A list response without ShardInfo
// means the server ignored the selector (the ShardedListAndWatch feature
// gate is off, or the linked apimachinery predates v0.36 and could not send
// it): then the list's items and the following watches are filtered on the
// client by the range's hash, which selects exactly what the server would.
type rangeListerWatcher struct {
	inner    informer.ListerWatcherWithContext
	r        Range
	key      Key
	selector string
	owner    *ShardedInformer
	// filtering is set by each list: whether the server ignored the
	// selector. The watch that follows a list reads it.
	filtering atomic.Bool

	mu sync.Mutex
	// final is the state of every key the source has sent the informer
	// (key -> resourceVersion), for a drain to wait on.
	final  map[string]string
	frozen bool // handing over: nothing more reaches the informer
}

// errFrozen is returned by a frozen range's lists.
var errFrozen = errors.New("sharding: the range is being handed over")

// freeze makes the source send the informer nothing more and returns the
// state of every key it has sent.
func (lw *rangeListerWatcher) freeze() map[string]string {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.frozen = true
	return lw.final
}

// recordList replaces the known state with a list's items; false if frozen.
func (lw *rangeListerWatcher) recordList(items []runtime.Object) bool {
	final := make(map[string]string, len(items))
	for _, item := range items {
		if key, rv, ok := stateOf(item); ok {
			final[key] = rv
		}
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.frozen {
		return false
	}
	lw.final = final
	return true
}

// recordEvent records a watch event passed on; false if frozen (drop it).
func (lw *rangeListerWatcher) recordEvent(e watch.Event) bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.frozen {
		return false
	}
	switch e.Type {
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		return true
	}
	key, rv, ok := stateOf(e.Object)
	if !ok {
		return true
	}
	if lw.final == nil {
		lw.final = map[string]string{}
	}
	if e.Type == watch.Deleted {
		delete(lw.final, key)
	} else {
		lw.final[key] = rv
	}
	return true
}

func newRangeListerWatcher(inner informer.ListerWatcher, r Range, key Key, owner *ShardedInformer) *rangeListerWatcher {
	return &rangeListerWatcher{
		inner:    informer.ToListerWatcherWithContext(inner),
		r:        r,
		key:      key,
		selector: r.Selector(key),
		owner:    owner,
	}
}

// List lists the range.
//
// Deprecated: use ListWithContext.
func (lw *rangeListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), options)
}

// Watch watches the range.
//
// Deprecated: use WatchWithContext.
func (lw *rangeListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), options)
}

// IsWatchListSemanticsUnSupported keeps the reflector on list and watch: the
// server's ShardInfo comes with a list response, and it decides whether to
// filter on the client.
func (lw *rangeListerWatcher) IsWatchListSemanticsUnSupported() bool { return true }

// ListWithContext lists the range, filtering on the client if the server
// did not.
func (lw *rangeListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	if lw.isFrozen() {
		return nil, waitFrozen(ctx)
	}
	setShardSelector(&options, lw.selector)
	if listprobe.Is(ctx) {
		// SetListOptions checking new options: this list reaches no
		// informer, so it changes nothing recorded here.
		return lw.inner.ListWithContext(ctx, options)
	}
	obj, err := lw.inner.ListWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	if hasShardInfo(obj) {
		lw.filtering.Store(false)
		return lw.recorded(ctx, obj)
	}
	lw.filtering.Store(true)
	lw.owner.serverDoesNotShard(ctx)
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, fmt.Errorf("sharding: filtering a list on the client: %w", err)
	}
	kept := items[:0]
	for _, item := range items {
		if lw.matches(ctx, item) {
			kept = append(kept, item)
		}
	}
	if dropped := len(items) - len(kept); dropped > 0 {
		lw.owner.metrics.ClientFiltered(lw.r, dropped)
	}
	if err := meta.SetList(obj, kept); err != nil {
		return nil, fmt.Errorf("sharding: filtering a list on the client: %w", err)
	}
	return lw.recorded(ctx, obj)
}

// recorded records a list about to be returned, or fails if frozen.
func (lw *rangeListerWatcher) recorded(ctx context.Context, list runtime.Object) (runtime.Object, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("sharding: reading a list: %w", err)
	}
	if !lw.recordList(items) {
		return nil, waitFrozen(ctx)
	}
	return list, nil
}

// waitFrozen is a frozen range's list: it waits for the range informer to
// stop rather than have its reflector retry.
func waitFrozen(ctx context.Context) error {
	<-ctx.Done()
	return errors.Join(errFrozen, ctx.Err())
}

func (lw *rangeListerWatcher) isFrozen() bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.frozen
}

// WatchWithContext watches the range, filtering on the client if the last
// list showed the server does not.
func (lw *rangeListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	setShardSelector(&options, lw.selector)
	w, err := lw.inner.WatchWithContext(ctx, options)
	if err != nil {
		return w, err
	}
	filtering := lw.filtering.Load()
	return newFilteredWatch(w, func(e watch.Event) bool {
		switch e.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			if filtering && !lw.matches(ctx, e.Object) {
				lw.owner.metrics.ClientFiltered(lw.r, 1)
				return false
			}
		}
		return lw.recordEvent(e)
	}), nil
}

// filteredWatch passes on the events of a watch that keep accepts. Its
// goroutine ends when the watch's result channel closes or when Stop is
// called, also while an event waits to be received by a consumer that
// stopped reading (apimachinery's watch.Filter blocks forever then).
type filteredWatch struct {
	in   watch.Interface
	keep func(watch.Event) bool
	out  chan watch.Event
	stop chan struct{}
	once sync.Once
}

func newFilteredWatch(in watch.Interface, keep func(watch.Event) bool) *filteredWatch {
	fw := &filteredWatch{in: in, keep: keep, out: make(chan watch.Event), stop: make(chan struct{})}
	go fw.loop()
	return fw
}

// ResultChan returns the accepted events; it is closed after Stop or when
// the watch ends.
func (fw *filteredWatch) ResultChan() <-chan watch.Event { return fw.out }

// Stop stops the watch and the goroutine passing its events on.
func (fw *filteredWatch) Stop() {
	fw.once.Do(func() {
		close(fw.stop)
		fw.in.Stop()
	})
}

func (fw *filteredWatch) loop() {
	defer close(fw.out)
	for {
		select {
		case <-fw.stop:
			return
		case e, ok := <-fw.in.ResultChan():
			if !ok {
				return
			}
			if !fw.keep(e) {
				continue
			}
			select {
			case fw.out <- e:
			case <-fw.stop:
				return
			}
		}
	}
}

// matches evaluates the range's selector on obj. An object whose key
// cannot be read is dropped and logged: no range could claim it.
func (lw *rangeListerWatcher) matches(ctx context.Context, obj runtime.Object) bool {
	ok, err := lw.r.Matches(lw.key, obj)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Dropping an object whose shard key cannot be read", "range", lw.r)
		return false
	}
	return ok
}

// hasShardInfo reports whether a list response says the server applied a
// shard selector.
func hasShardInfo(list runtime.Object) bool {
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		_, found, _ := unstructured.NestedMap(u.Object, "metadata", "shardInfo")
		return found
	}
	// Typed lists embed metav1.ListMeta, whose GetListMeta returns it.
	if a, ok := list.(metav1.ListMetaAccessor); ok {
		lm, ok := a.GetListMeta().(*metav1.ListMeta)
		return ok && hasListMetaShardInfo(lm)
	}
	return false
}
