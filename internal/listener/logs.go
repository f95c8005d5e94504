package listener

import (
	"errors"
	"math"
	"slices"
	"sync"
	"time"
)

// DefaultBacklogWarnThresholds are the pending counts at which a listener
// warns that its handler is falling behind, when Options.BacklogWarnThresholds
// is empty. The first is near client-go's 1024, above which it traces every
// handler call.
var DefaultBacklogWarnThresholds = []int{1000, 10000, 100000}

// logInterval is the rate limit of the backlog and slow-call messages: per
// listener, at most one drain message and one crossing message per
// threshold in each interval, and at most one slow-call message.
const logInterval = 10 * time.Second

// backlogThresholds returns the sorted, deduplicated thresholds for opt:
// the defaults when it is empty, none when it holds a negative value.
func backlogThresholds(opt []int) ([]int64, error) {
	if len(opt) == 0 {
		opt = DefaultBacklogWarnThresholds
	}
	var th []int64
	for _, v := range opt {
		switch {
		case v < 0:
			return nil, nil
		case v == 0:
			return nil, errors.New("BacklogWarnThresholds must not contain 0")
		}
		th = append(th, int64(v))
	}
	slices.Sort(th)
	return slices.Compact(th), nil
}

// backlogEvent is a backlog message to log, decided while the pending
// count was serialised and logged after.
type backlogEvent struct {
	kind       uint8 // 0 none, backlogCrossed or backlogDrained
	pending    int64
	threshold  int64
	suppressed int
}

const (
	backlogCrossed uint8 = iota + 1
	backlogDrained
)

// backlogWatch follows a listener's pending count against its thresholds.
// It is plain single-goroutine code: the engine calls observe where its
// pending count changes, serialised.
//
// An episode starts when the count reaches the lowest threshold and ends,
// with the "caught up" message, once fewer than half of it are pending
// (2p < th[0]): the hysteresis keeps a backlog that hovers at a threshold
// from logging a warning and a drain on every step. Within an episode each
// threshold's warning is logged at most once.
type backlogWatch struct {
	th    []int64 // ascending; empty = off
	level int     // thresholds reached in this episode (0: none)
	// up and down bound the quiet range: observe does nothing while
	// down <= p < up.
	up, down   int64
	lastCross  []time.Time // per threshold, of the last logged crossing
	lastDrain  time.Time
	suppressed int // messages not logged since the last one that was
}

func newBacklogWatch(th []int64) backlogWatch {
	w := backlogWatch{th: th, lastCross: make([]time.Time, len(th))}
	w.bounds()
	return w
}

// bounds recomputes up and down from level.
func (w *backlogWatch) bounds() {
	w.up, w.down = math.MaxInt64, math.MinInt64
	if w.level < len(w.th) {
		w.up = w.th[w.level]
	}
	if w.level > 0 {
		w.down = drainBelow(w.th[0])
	}
}

// drainBelow is the pending count below which a backlog episode that
// crossed lowest ends: half of it, rounded up, so that 2p < lowest.
func drainBelow(lowest int64) int64 { return (lowest + 1) / 2 }

// observe returns the message to log, if any, for the new pending count p;
// now is called only when a threshold is crossed.
func (w *backlogWatch) observe(p int64, now func() time.Time) backlogEvent {
	if p < w.up && p >= w.down {
		return backlogEvent{}
	}
	t := now()
	var ev backlogEvent
	if p < w.down {
		w.level = 0
		if w.lastDrain.IsZero() || t.Sub(w.lastDrain) >= logInterval {
			w.lastDrain = t
			ev = backlogEvent{kind: backlogDrained, pending: p, threshold: w.th[0], suppressed: w.suppressed}
			w.suppressed = 0
		} else {
			w.suppressed++
		}
	}
	for w.level < len(w.th) && p >= w.th[w.level] {
		i := w.level
		w.level++
		if w.lastCross[i].IsZero() || t.Sub(w.lastCross[i]) >= logInterval {
			w.lastCross[i] = t
			ev = backlogEvent{kind: backlogCrossed, pending: p, threshold: w.th[i], suppressed: w.suppressed}
			w.suppressed = 0
		} else {
			w.suppressed++
		}
	}
	w.bounds()
	return ev
}

// logBacklog logs ev, if it is a message.
func (l *Listener) logBacklog(ev backlogEvent) {
	switch ev.kind {
	case backlogCrossed:
		kv := []any{"handler", l.name, "pending", ev.pending, "threshold", ev.threshold}
		if ev.suppressed > 0 {
			kv = append(kv, "suppressed", ev.suppressed)
		}
		l.logger.Info("Warning: event handler is falling behind: pending notifications crossed a threshold", kv...)
	case backlogDrained:
		kv := []any{"handler", l.name, "pending", ev.pending, "threshold", ev.threshold}
		if ev.suppressed > 0 {
			kv = append(kv, "suppressed", ev.suppressed)
		}
		l.logger.Info("Event handler caught up: pending notifications dropped below half the lowest threshold", kv...)
	}
}

// slowLog rate-limits the slow-call warning of one listener; workers may
// call it concurrently.
type slowLog struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// warnSlowCall warns, rate-limited, that the handler call for n ran for d,
// at least Options.SlowHandlerThreshold.
func (l *Listener) warnSlowCall(n Notification, d time.Duration) {
	now := l.clock.Now()
	l.slow.mu.Lock()
	if !l.slow.last.IsZero() && now.Sub(l.slow.last) < logInterval {
		l.slow.suppressed++
		l.slow.mu.Unlock()
		return
	}
	l.slow.last = now
	suppressed := l.slow.suppressed
	l.slow.suppressed = 0
	l.slow.mu.Unlock()
	kv := []any{"handler", l.name, "notification", n.Kind.String(), "key", l.keyOf(n.Obj), "duration", d, "threshold", l.slowThreshold}
	if suppressed > 0 {
		kv = append(kv, "suppressed", suppressed)
	}
	l.logger.Info("Warning: slow event handler call", kv...)
}
