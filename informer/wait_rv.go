package informer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/kfanout/fanout/internal/features"
)

// ErrInvalidResourceVersion is returned by WaitForResourceVersion for a
// resourceVersion that is not one the API server hands out: it must be a
// positive decimal integer without leading zeros ("" and "0" are the
// special values of list and watch requests, not versions).
var ErrInvalidResourceVersion = errors.New("informer: not a resourceVersion")

// ErrStoppedBeforeResourceVersion is returned by WaitForResourceVersion
// when the informer stops before its cache reaches the resourceVersion.
var ErrStoppedBeforeResourceVersion = errors.New("informer: stopped before its cache reached the resourceVersion")

// rvPollPeriod is how often WaitForResourceVersion looks at the cache.
const rvPollPeriod = 2 * time.Millisecond

// WaitForResourceVersion waits until the informer's cache has applied
// resourceVersion or a newer one, so that a read from the cache made after
// it returns sees every change of this resource up to resourceVersion:
// write an object, wait for the resourceVersion the server returned, then
// read your own write from the lister. It returns nil once that holds, an
// error wrapping ErrInvalidResourceVersion at once for a resourceVersion
// that is not one, an error wrapping ErrStoppedBeforeResourceVersion if
// the informer stops first, and an error wrapping the context's error (and
// naming the cache's resourceVersion) if ctx ends first. It may be called
// before Run; it then waits for the informer to start.
//
// Comparing resourceVersions: the API server's contract (KEP-5504,
// k8s.io/apimachinery/pkg/util/resourceversion) is that resourceVersions
// are decimal integers that may be compared, and the comparison has
// meaning between objects of the same resource: two writes to one resource
// are ordered by their resourceVersions. On kube-apiserver with etcd every
// resource shares one counter, so a resourceVersion of another resource
// works as a point in time: the wait ends at the first event or bookmark
// of this resource at or after it (bookmarks come about once a minute on a
// quiet watch), and the cache then holds every change of this resource
// made before it. An aggregated API server may count differently; compare
// only versions of the resource the informer watches there.
//
// The cache's resourceVersion is that of the last list, watch event or
// bookmark it applied; it only moves forward, through relists too. With
// the default queue (RealFIFO, atomic relists: the InOrderInformers and
// AtomicFIFO gates) that is exact. With the DeltaFIFO (InOrder false), which
// applies changes per key rather than in order, the wait ends once the
// reflector has received resourceVersion and the queue was then seen empty,
// which under constant churn can take longer.
func (s *sharedIndexInformer) WaitForResourceVersion(ctx context.Context, resourceVersion string) error {
	if _, err := resourceversion.CompareResourceVersion(resourceVersion, resourceVersion); err != nil {
		return fmt.Errorf("%w: %q (%v)", ErrInvalidResourceVersion, resourceVersion, err)
	}
	for {
		reached, current, stopped := s.reachedResourceVersion(resourceVersion)
		switch {
		case reached:
			return nil
		case stopped:
			return fmt.Errorf("%w: waiting for %s, the cache is at %q", ErrStoppedBeforeResourceVersion, resourceVersion, current)
		}
		t := s.clock.NewTimer(rvPollPeriod)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting for resourceVersion %s, the cache is at %q: %w", resourceVersion, current, context.Cause(ctx))
		case <-t.C():
		}
	}
}

// reachedResourceVersion reports whether the cache has applied rv (a
// well-formed resourceVersion), the cache's resourceVersion, and whether
// the informer has stopped.
func (s *sharedIndexInformer) reachedResourceVersion(rv string) (reached bool, current string, stopped bool) {
	s.startedLock.Lock()
	stopped = s.stopped
	ctl, _ := s.controller.(*controller)
	s.startedLock.Unlock()
	if ctl == nil {
		return false, "", stopped
	}
	c, ok := s.indexer.(*cache)
	if _, realFIFO := ctl.config.Queue.(*RealFIFO); ok && realFIFO && features.Enabled(features.AtomicFIFO) {
		current = c.storage.resourceVersion()
		return atLeast(current, rv), current, stopped
	}
	// Per-key queues: what the reflector has received is applied once the
	// queue, looked at afterwards, is empty (its consumer holds the
	// queue's lock while it applies an item, so TryLen fails meanwhile).
	current = ctl.LastSyncResourceVersion()
	if !atLeast(current, rv) {
		return false, current, stopped
	}
	n, busy := queueDepth(ctl.config.Queue)
	return !busy && n == 0, current, stopped
}

// atLeast reports whether current is a resourceVersion at or after rv.
func atLeast(current, rv string) bool {
	c, err := resourceversion.CompareResourceVersion(current, rv)
	return err == nil && c >= 0
}

// resourceVersion returns the resourceVersion of the last write, replace
// or bookmark applied to the store.
func (m *threadSafeMap) resourceVersion() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.rv
}

// waitSeq waits until the cache has applied resourceVersion and returns
// the Seq of the last change distributed to the handlers by then; it backs
// the registrations' WaitForResourceVersion.
func (s *sharedIndexInformer) waitSeq(ctx context.Context, resourceVersion string) (uint64, error) {
	if err := s.WaitForResourceVersion(ctx, resourceVersion); err != nil {
		return 0, err
	}
	return s.hub.LastSeq(), nil
}
