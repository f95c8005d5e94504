package informer

import (
	"slices"
	"strings"
	"sync"
)

// running is the set of this package's informers whose Run is in
// progress. The waits of WaitForCacheSync take their reasons from it: an
// InformerSynced is a plain func, which does not say whose HasSynced it is.
var running struct {
	mu  sync.Mutex
	set map[*sharedIndexInformer]struct{}
}

// trackRunning adds s to running and returns the func that removes it.
func trackRunning(s *sharedIndexInformer) (untrack func()) {
	running.mu.Lock()
	defer running.mu.Unlock()
	if running.set == nil {
		running.set = make(map[*sharedIndexInformer]struct{})
	}
	running.set[s] = struct{}{}
	return func() {
		running.mu.Lock()
		defer running.mu.Unlock()
		delete(running.set, s)
	}
}

// unsyncedStatuses returns the SyncStatus of every running informer that
// has not synced or has a registration that has not, sorted by name.
func unsyncedStatuses() []SyncStatus {
	running.mu.Lock()
	infs := make([]*sharedIndexInformer, 0, len(running.set))
	for s := range running.set {
		infs = append(infs, s)
	}
	running.mu.Unlock()
	var out []SyncStatus
	for _, s := range infs {
		st := s.SyncStatus()
		if !st.Synced() || slices.ContainsFunc(st.Handlers, func(h SyncStatus) bool { return !h.Synced() }) {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(a, b SyncStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}
