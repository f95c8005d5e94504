package informer

import (
	"math"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
)

// client-go's backoff between failed list/watch attempts: 800ms doubling
// to a 30s cap with up to 100% jitter, so a dead server sees about one
// request every 30-60s; reset two minutes after it last started.
const (
	defaultBackoffInit   = 800 * time.Millisecond
	defaultBackoffMax    = 30 * time.Second
	defaultBackoffReset  = 2 * time.Minute
	defaultBackoffFactor = 2.0
	defaultBackoffJitter = 1.0
)

// newBackoffDelay returns the reflector's delay function: b, or the
// default backoff when b is nil, reset on clock c every two minutes. The
// result is safe for concurrent use.
func newBackoffDelay(b *wait.Backoff, c clock.Clock) wait.DelayFunc {
	if b == nil {
		b = &wait.Backoff{
			Duration: defaultBackoffInit,
			Cap:      defaultBackoffMax,
			Steps:    int(math.Ceil(float64(defaultBackoffMax) / float64(defaultBackoffInit))),
			Factor:   defaultBackoffFactor,
			Jitter:   defaultBackoffJitter,
		}
	}
	return b.DelayWithReset(c, defaultBackoffReset)
}

// RetryWithDeadline decides whether an error may be retried, allowing
// retries for a bounded time after the first of a run of retryable errors.
type RetryWithDeadline interface {
	// After records the outcome of an attempt.
	After(err error)
	// ShouldRetry reports whether the run of errors is still within its
	// deadline.
	ShouldRetry() bool
}

// NewRetryWithDeadline returns a RetryWithDeadline that allows retries for
// maxRetryDuration after the first error for which isRetryable is true. A
// run of errors ends, and the deadline restarts, once minResetPeriod
// passes without one. A maxRetryDuration of zero or less never retries.
func NewRetryWithDeadline(maxRetryDuration, minResetPeriod time.Duration, isRetryable func(error) bool, c clock.Clock) RetryWithDeadline {
	return &retryWithDeadline{
		maxRetryDuration: maxRetryDuration,
		minResetPeriod:   minResetPeriod,
		isRetryable:      isRetryable,
		clock:            c,
	}
}

// retryWithDeadline is used by one goroutine at a time.
type retryWithDeadline struct {
	firstErrorTime   time.Time
	lastErrorTime    time.Time
	maxRetryDuration time.Duration
	minResetPeriod   time.Duration
	isRetryable      func(error) bool
	clock            clock.Clock
}

func (r *retryWithDeadline) After(err error) {
	if !r.isRetryable(err) {
		return
	}
	now := r.clock.Now()
	if now.Sub(r.lastErrorTime) >= r.minResetPeriod {
		r.firstErrorTime, r.lastErrorTime = time.Time{}, time.Time{}
	}
	if r.firstErrorTime.IsZero() {
		r.firstErrorTime = now
	}
	r.lastErrorTime = now
}

func (r *retryWithDeadline) ShouldRetry() bool {
	if r.maxRetryDuration <= 0 {
		return false
	}
	if r.clock.Now().Sub(r.firstErrorTime) <= r.maxRetryDuration {
		return true
	}
	r.firstErrorTime, r.lastErrorTime = time.Time{}, time.Time{}
	return false
}
