package listener

import (
	"time"

	"k8s.io/klog/v2"
)

// DetermineResyncPeriod returns the resync period a listener uses when its
// handler asked for desired and the informer checks for resyncs every check,
// with client-go's rules: 0 if desired is 0; 0 (with a warning) if the
// informer does not resync (check is 0); check (with a warning) if desired is
// shorter; desired otherwise.
func DetermineResyncPeriod(logger klog.Logger, desired, check time.Duration) time.Duration {
	switch {
	case desired == 0:
		return 0
	case check == 0:
		logger.Info("Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing", "desired", desired)
		return 0
	case desired < check:
		logger.Info("Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod", "desired", desired, "resyncCheckPeriod", check)
		return check
	}
	return desired
}

// RequestedResyncPeriod returns the resync period the handler asked for.
func (l *Listener) RequestedResyncPeriod() time.Duration {
	l.resyncMu.Lock()
	defer l.resyncMu.Unlock()
	return l.requestedResyncPeriod
}

// ResyncPeriod returns the resync period in effect; 0 means never.
func (l *Listener) ResyncPeriod() time.Duration {
	l.resyncMu.Lock()
	defer l.resyncMu.Unlock()
	return l.resyncPeriod
}

// shouldResync reports whether a resync is due at now: never with a zero
// period, otherwise once now has reached the next resync time.
func (l *Listener) shouldResync(now time.Time) bool {
	l.resyncMu.Lock()
	defer l.resyncMu.Unlock()
	return l.resyncPeriod != 0 && !now.Before(l.nextResync)
}

// determineNextResync schedules the next resync one period after now.
func (l *Listener) determineNextResync(now time.Time) {
	l.resyncMu.Lock()
	defer l.resyncMu.Unlock()
	l.nextResync = now.Add(l.resyncPeriod)
}

func (l *Listener) setResyncPeriod(d time.Duration) {
	l.resyncMu.Lock()
	defer l.resyncMu.Unlock()
	l.resyncPeriod = d
}
