package informer

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kfanout/fanout/internal/synctrack"
	"github.com/kfanout/fanout/listener"
)

// SyncState says what an informer or a handler registration is waiting for
// before it reports HasSynced.
type SyncState string

// The states of SyncStatus, in the order an informer goes through them.
const (
	// SyncNotStarted: Run has not been called.
	SyncNotStarted SyncState = "NotStarted"
	// SyncListing: a list (or a watch-list stream) is in progress;
	// SyncStatus.Items counts what has arrived so far. Attempts and
	// LastError tell about earlier attempts that failed.
	SyncListing SyncState = "Listing"
	// SyncListFailing: the last list failed; LastError, Attempts and
	// NextRetry say why, how often and when the next one starts.
	SyncListFailing SyncState = "ListFailing"
	// SyncDelivering: the list has been received and the informer's queue
	// is writing it to the cache and handing it to the handlers;
	// QueueDepth items are left.
	SyncDelivering SyncState = "Delivering"
	// SyncHandlerPending: (a registration) the informer has synced, and
	// the handler has not yet returned from PendingInitial initial-list
	// notifications, the oldest waiting for OldestPending.
	SyncHandlerPending SyncState = "HandlerPending"
	// SyncHandlerPanicked: (a registration) the handler panicked on an
	// initial-list add and, without HandlerOptions.RecoverPanics, that add
	// never counts as handled: the registration cannot sync.
	SyncHandlerPanicked SyncState = "HandlerPanicked"
	// SyncWaitingForShards: (a sharded informer) the replica does not yet
	// know which ranges of the resource it owns.
	SyncWaitingForShards SyncState = "WaitingForShards"
	// SyncStopped: the informer stopped before it synced.
	SyncStopped SyncState = "Stopped"
	// SyncSynced: HasSynced is true.
	SyncSynced SyncState = "Synced"
)

// SyncStatus says why an informer, or one handler registration of it, has
// not synced: the state it is in and the figures of that state. Fields that
// do not apply to the state are zero.
type SyncStatus struct {
	// Name names the informer (the name of its metrics), or for a
	// registration the informer and the handler ("informer/handler").
	Name string
	// State is what the wait is for; SyncSynced once HasSynced is true.
	State SyncState
	// Since is when the list in progress started (SyncListing).
	Since time.Time
	// WatchList is true when the list in progress is a watch-list stream.
	WatchList bool
	// Items counts the objects received so far by the list in progress.
	Items int64
	// Attempts counts the lists that failed in a row, LastError is the
	// newest failure (it wraps the server's error: apierrors.IsForbidden
	// works on it), LastErrorTime when it came, and NextRetry when the
	// next attempt starts (zero while one runs).
	Attempts      int
	LastError     error
	LastErrorTime time.Time
	NextRetry     time.Time
	// QueueDepth is the number of items the informer's queue still holds
	// (SyncDelivering); -1 when it could not be read without waiting.
	QueueDepth int
	// PendingInitial is the number of initial-list notifications the
	// handler has not returned from, and OldestPending how long the oldest
	// notification waiting for the handler has waited (0 if the engine does
	// not measure it).
	PendingInitial int64
	OldestPending  time.Duration
	// Panics counts the handler's calls that panicked.
	Panics uint64
	// Switching is true (in any State, usually SyncSynced) while a change
	// of list options made by SetListOptions, asked for at SwitchingSince,
	// has not yet been applied to the cache: the cache still serves the
	// previous selection, and HasSynced stays true. Attempts, LastError,
	// LastErrorTime and NextRetry then tell about the lists with the new
	// options that failed.
	Switching      bool
	SwitchingSince time.Time
	// Registration is the handle of the registration this status is about;
	// nil for an informer's status.
	Registration ResourceEventHandlerRegistration
	// Handlers are the statuses of the informer's registrations, in the
	// order they were added; empty for a registration's status.
	Handlers []SyncStatus
}

// Synced reports whether the status is SyncSynced.
func (s SyncStatus) Synced() bool { return s.State == SyncSynced }

// Handler returns the status of registration reg among s.Handlers.
func (s SyncStatus) Handler(reg ResourceEventHandlerRegistration) (SyncStatus, bool) {
	for _, h := range s.Handlers {
		if h.Registration == reg {
			return h, true
		}
	}
	return SyncStatus{}, false
}

// String describes the status in one line, for logs; for an informer it
// also names its handlers that have not synced.
func (s SyncStatus) String() string {
	var b strings.Builder
	s.describe(&b, time.Now())
	for _, h := range s.Handlers {
		if !h.Synced() && h.State != s.State {
			b.WriteString("; ")
			h.describe(&b, time.Now())
		}
	}
	return b.String()
}

// describe writes s, without its handlers, to b.
func (s SyncStatus) describe(b *strings.Builder, now time.Time) {
	fmt.Fprintf(b, "%s: ", s.Name)
	switch s.State {
	case SyncNotStarted:
		b.WriteString("not started (Run has not been called)")
	case SyncListing:
		kind := "list"
		if s.WatchList {
			kind = "watch-list stream"
		}
		fmt.Fprintf(b, "%s in progress for %v, %d objects so far", kind, roundAge(now.Sub(s.Since)), s.Items)
	case SyncListFailing:
		fmt.Fprintf(b, "list failing")
	case SyncDelivering:
		if s.QueueDepth >= 0 {
			fmt.Fprintf(b, "listed, writing the list to the cache (%d items left in the queue)", s.QueueDepth)
		} else {
			b.WriteString("listed, writing the list to the cache (the queue is busy: a handler may block distribution)")
		}
	case SyncHandlerPending:
		fmt.Fprintf(b, "handler has %d initial notifications to handle", s.PendingInitial)
		if s.OldestPending > 0 {
			fmt.Fprintf(b, ", the oldest waiting for %v", roundAge(s.OldestPending))
		}
	case SyncHandlerPanicked:
		fmt.Fprintf(b, "handler panicked (%d times) on an initial-list add and cannot sync (set HandlerOptions.RecoverPanics to count a panicking add as handled); %d initial notifications not finished", s.Panics, s.PendingInitial)
	case SyncWaitingForShards:
		b.WriteString("waiting to learn which shard ranges this replica owns")
	case SyncStopped:
		b.WriteString("stopped before it synced")
	case SyncSynced:
		b.WriteString("synced")
	}
	if s.Switching {
		fmt.Fprintf(b, "; switching to new list options for %v", roundAge(now.Sub(s.SwitchingSince)))
	}
	if s.Attempts > 0 && s.LastError != nil && (s.State == SyncListing || s.State == SyncListFailing || s.Switching) {
		fmt.Fprintf(b, " (%d failed attempts, last error %v ago: %v", s.Attempts, roundAge(now.Sub(s.LastErrorTime)), s.LastError)
		if !s.NextRetry.IsZero() {
			fmt.Fprintf(b, "; next attempt in %v", roundAge(s.NextRetry.Sub(now)))
		}
		b.WriteString(")")
	}
}

// roundAge rounds d for a log line.
func roundAge(d time.Duration) time.Duration {
	switch {
	case d < 0:
		return 0
	case d < time.Second:
		return d.Round(time.Millisecond)
	default:
		return d.Round(100 * time.Millisecond)
	}
}

// Err returns nil when s is synced, otherwise a *NotSyncedError holding s.
func (s SyncStatus) Err() error {
	if s.Synced() {
		return nil
	}
	return &NotSyncedError{Status: s}
}

// NotSyncedError reports an informer or registration that has not synced,
// with its SyncStatus. It unwraps to the status's LastError, so
// apierrors.IsForbidden tells a list refused for lack of RBAC permission.
type NotSyncedError struct {
	Status SyncStatus
}

func (e *NotSyncedError) Error() string { return "not synced: " + e.Status.String() }

// Unwrap returns the last list error, if any.
func (e *NotSyncedError) Unwrap() error { return e.Status.LastError }

// SyncStatus reports what the informer, and each of its handler
// registrations, waits for before it has synced. It takes a few locks
// briefly and never waits for the informer's queue or handlers.
func (s *sharedIndexInformer) SyncStatus() SyncStatus {
	st := SyncStatus{Name: s.metricsName}
	st.Switching, st.SwitchingSince = s.switcher.switching()
	s.startedLock.Lock()
	started, stopped := s.started, s.stopped
	ctl, _ := s.controller.(*controller)
	s.startedLock.Unlock()
	switch {
	case s.HasSynced():
		st.State = SyncSynced
		if st.Switching {
			s.switchAttempts(&st, ctl)
		}
	case stopped: // also shut down before it ran
		st.State = SyncStopped
	case !started:
		st.State = SyncNotStarted
	default:
		s.fillState(&st, ctl)
	}
	for _, l := range s.processor.Listeners() {
		st.Handlers = append(st.Handlers, s.handlerSyncStatus(st, l))
	}
	return st
}

// fillState sets the state of a started, unsynced informer from its
// reflector and queue.
func (s *sharedIndexInformer) fillState(st *SyncStatus, ctl *controller) {
	var r *Reflector
	if ctl != nil {
		ctl.mu.RLock()
		r = ctl.reflector
		ctl.mu.RUnlock()
	}
	if r == nil {
		st.State = SyncListing // the controller is about to start it
		st.Since = s.clock.Now()
		return
	}
	f := r.fill.snapshot()
	st.Attempts, st.LastError, st.LastErrorTime, st.NextRetry = f.attempts, f.lastErr, f.lastErrAt, f.nextRetry
	switch {
	case f.filled:
		st.State = SyncDelivering
		st.QueueDepth, _ = queueDepth(ctl.config.Queue)
	case f.filling:
		st.State, st.Since, st.WatchList, st.Items = SyncListing, f.since, f.watchList, f.items
	case f.attempts > 0:
		st.State = SyncListFailing
	default:
		st.State, st.Since = SyncListing, s.clock.Now()
	}
}

// handlerSyncStatus is the status of listener l, given its informer's.
func (s *sharedIndexInformer) handlerSyncStatus(inf SyncStatus, l *listener.Listener) SyncStatus {
	st := SyncStatus{Name: inf.Name + "/" + l.Name(), Registration: l}
	stats := l.Stats()
	st.Panics, st.OldestPending = stats.Panics, stats.OldestPendingAge
	if t, ok := l.HasSyncedChecker().(*synctrack.SingleFileTracker); ok {
		st.PendingInitial = t.Pending()
	}
	switch {
	case l.HasSynced():
		st.State = SyncSynced
	case !inf.Synced():
		st.State, st.Since, st.WatchList, st.Items = inf.State, inf.Since, inf.WatchList, inf.Items
		st.Attempts, st.LastError, st.LastErrorTime, st.NextRetry, st.QueueDepth = inf.Attempts, inf.LastError, inf.LastErrorTime, inf.NextRetry, inf.QueueDepth
	case stats.Panics > 0 && st.PendingInitial > stats.Pending:
		// More initial adds are unfinished than wait for the handler: one
		// was taken and never finished, which only a panic (without
		// RecoverPanics) does, or one is being handled right now.
		st.State = SyncHandlerPanicked
	default:
		st.State = SyncHandlerPending
	}
	return st
}

// ErrNotFanoutInformer is returned for an informer this package did not
// build.
var ErrNotFanoutInformer = errors.New("informer: not a fanout shared informer")

// SyncStatusOf returns the SyncStatus of inf, which must be an informer
// built by this package or a wrapper of one (such as a typed informer).
func SyncStatusOf(inf SharedInformer) (SyncStatus, error) {
	s, ok := unwrapInformer(inf)
	if !ok {
		return SyncStatus{}, ErrNotFanoutInformer
	}
	return s.SyncStatus(), nil
}
