package ring

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// Target is what a Coordinator starts and stops ranges on; ShardedInformer
// is one.
type Target interface {
	// StartRange starts delivering range r; the Coordinator holds r's
	// claim. It must not block for long.
	StartRange(ctx context.Context, r Range)
	// StopRange stops delivering range r. With graceful, it returns only
	// once no handler is called for r any more (or ctx is done); the
	// Coordinator releases the claim after it returns. Without graceful the
	// claim is lost or about to expire: it must stop delivering at once and
	// not wait. A graceful stop may be overtaken by a forced one for the
	// same range; a stop of a range not started does nothing.
	StopRange(ctx context.Context, r Range, graceful bool)
}

// Coordinator runs a replica's part in a ring: every RetryPeriod it renews
// its membership and its claims, computes the assignment of ranges to the
// live members, hands over the ranges it holds but no longer owns, and
// takes the ranges it owns but does not hold once they are free. Between
// rounds it watches the ring's Leases, so that other replicas' renewals
// count from when they are written (see watchLeases).
//
// Handover of a range r from A to B:
//
//  1. A's assignment no longer gives r to A: A calls StopRange(r, graceful)
//     (its handlers finish), keeps renewing r's claim meanwhile, then
//     releases it.
//  2. B's TryAcquire sees the claim free and takes it, then StartRange(r):
//     B lists and watches r.
//
// If A dies instead, B takes r once A's claim has expired (see Claims).
type Coordinator struct {
	cfg        Config
	target     Target
	metrics    Metrics
	membership *Membership
	claims     *Claims
	ranges     []Range

	// Owned by Run's goroutine.
	serving  map[int]bool
	draining map[int]time.Time // start of the handover
	desired  map[int]bool      // owned by the last assignment
	members  []string

	drainDone chan int // graceful StopRange calls that returned
	drains    sync.WaitGroup
	// drainCtx is the graceful stops' context: not cancelled with Run's, so
	// that leaving waits for handlers, but cancelled when leaving gives up.
	drainCtx    context.Context
	cancelDrain context.CancelFunc
}

// CoordinatorOptions are a Coordinator's optional parts.
type CoordinatorOptions struct {
	// Metrics receives owned ranges and handover durations; none if nil.
	Metrics Metrics
}

// NewCoordinator returns the coordinator of cfg.Identity in cfg.Ring that
// starts and stops ranges on target.
func NewCoordinator(cfg Config, target Target, opts CoordinatorOptions) (*Coordinator, error) {
	cfg, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	if target == nil {
		return nil, errors.New("sharding: NewCoordinator: nil target")
	}
	m, _ := NewMembership(cfg)
	c, _ := NewClaims(cfg)
	rs, _ := Ranges(cfg.Ranges)
	metrics := opts.Metrics
	if metrics == nil {
		metrics = NoMetrics{}
	}
	return &Coordinator{
		cfg: cfg, target: target, metrics: metrics, membership: m, claims: c, ranges: rs,
		serving:   map[int]bool{},
		draining:  map[int]time.Time{},
		drainDone: make(chan int, cfg.Ranges),
	}, nil
}

// Run takes part in the ring until ctx is done, then leaves it: it hands
// every range over gracefully (renewing the claims meanwhile, for at most
// LeaseDuration), releases the claims, deletes its membership Lease and
// returns. Call it once.
func (c *Coordinator) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("ring", c.cfg.Ring, "identity", c.cfg.Identity)
	ctx = klog.NewContext(ctx, logger)
	c.drainCtx, c.cancelDrain = context.WithCancel(context.WithoutCancel(ctx))
	defer c.cancelDrain()
	var watcher sync.WaitGroup
	watcher.Go(func() { c.watchLeases(ctx) })
	for ctx.Err() == nil {
		c.Round(ctx, false)
		c.wait(ctx, c.nextWait())
	}
	// The watch ends with ctx; a leaving replica takes no range.
	watcher.Wait()

	// Leave: stop owning anything, but keep renewing until handed over.
	leaveCtx := klog.NewContext(context.WithoutCancel(ctx), logger)
	if err := c.membership.Leave(leaveCtx); err != nil {
		logger.Error(err, "Leaving the ring")
	}
	deadline := c.cfg.Clock.Now().Add(c.cfg.LeaseDuration)
	for len(c.claims.HeldRanges()) > 0 && c.cfg.Clock.Now().Before(deadline) {
		c.Round(leaveCtx, true)
		if len(c.claims.HeldRanges()) > 0 {
			c.wait(leaveCtx, c.nextWait())
		}
	}
	for _, i := range c.claims.HeldRanges() {
		c.loseRange(leaveCtx, i, "leaving, handover timed out")
	}
	c.cancelDrain()
	c.drains.Wait()
	logger.Info("Left the ring")
}

// wait returns after d, when a graceful stop returns, or when ctx is done.
func (c *Coordinator) wait(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-ctx.Done():
	case <-c.cfg.Clock.After(d):
	case i := <-c.drainDone:
		// Put it back for round to release.
		c.drainDone <- i
	}
}

// nextWait is the time to the next round: RetryPeriod, or less if a held
// claim stops being valid sooner, or another member or a wanted claim held
// by another replica expires sooner: so a dead replica's ranges are taken
// within LeaseDuration of the first sighting of its last renewal (when it
// is written while the watch runs, and otherwise at most one RetryPeriod
// after it), plus the time of the round.
func (c *Coordinator) nextWait() time.Duration {
	d := c.cfg.RetryPeriod
	now := c.cfg.Clock.Now()
	for _, i := range c.claims.HeldRanges() {
		d = min(d, c.claims.Deadline(i).Sub(now))
	}
	if at, ok := c.membership.NextExpiry(); ok {
		d = min(d, at.Sub(now))
	}
	for i := range c.desired {
		if c.claims.Held(i) {
			continue
		}
		if at, ok := c.claims.ExpiresAt(i); ok && at.After(now) {
			d = min(d, at.Sub(now))
		}
	}
	return max(d, 0)
}

// Round is one pass of renew, assign, hand over and acquire. leaving means
// the replica owns nothing.
func (c *Coordinator) Round(ctx context.Context, leaving bool) {
	logger := klog.FromContext(ctx)
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RetryPeriod)
	defer cancel()

	c.releaseDrained(rctx)
	if err := c.claims.Observe(rctx); err != nil {
		logger.Error(err, "Observing claims")
	}

	desired := map[int]bool{}
	if !leaving {
		if err := c.membership.Renew(rctx); err != nil {
			logger.Error(err, "Renewing membership")
		}
		if members, err := c.membership.Members(rctx); err != nil {
			logger.Error(err, "Listing members; keeping the last known set")
		} else {
			if !slices.Equal(members, c.members) {
				logger.Info("Ring members changed", "members", members)
			}
			c.members = members
		}
		members := c.members
		if !slices.Contains(members, c.cfg.Identity) {
			members = append(slices.Clone(members), c.cfg.Identity)
		}
		for _, i := range Owned(c.cfg.Identity, members, c.cfg.Ranges) {
			desired[i] = true
		}
	}
	c.desired = desired

	held := c.claims.HeldRanges()
	slices.Sort(held)
	var renew []int
	for _, i := range held {
		switch {
		case !c.claims.Valid(i):
			c.loseRange(ctx, i, "claim not renewed within the renew deadline")
			continue
		case c.serving[i] && !desired[i]:
			c.startDrain(ctx, i)
		}
		renew = append(renew, i)
	}
	for _, r := range concurrently(renew, func(i int) (bool, error) { return true, c.claims.Renew(rctx, i) }) {
		switch {
		case errors.Is(r.err, ErrClaimLost):
			c.loseRange(ctx, r.i, r.err.Error())
		case r.err != nil:
			logger.Error(r.err, "Renewing a claim", "range", c.ranges[r.i], "validUntil", c.claims.Deadline(r.i))
		}
	}

	var acquire []int
	for i := range c.cfg.Ranges {
		if desired[i] && !c.claims.Held(i) {
			acquire = append(acquire, i)
		}
	}
	for _, r := range concurrently(acquire, func(i int) (bool, error) { return c.claims.TryAcquire(rctx, i) }) {
		if r.err != nil {
			logger.Error(r.err, "Acquiring a range", "range", c.ranges[r.i])
			continue
		}
		if r.ok {
			logger.Info("Acquired range, starting it", "range", c.ranges[r.i])
			c.serving[r.i] = true
			c.target.StartRange(ctx, c.ranges[r.i])
		}
	}
	c.metrics.OwnedRanges(len(c.serving))
	if rd, ok := c.target.(interface{ RoundDone() }); ok {
		rd.RoundDone()
	}
}

// maxConcurrentRequests bounds the claim requests of one round in flight
// at once: a round with many ranges must fit in RetryPeriod.
const maxConcurrentRequests = 16

// result is one range's outcome in concurrently.
type result struct {
	i   int
	ok  bool
	err error
}

// concurrently calls f for every index, at most maxConcurrentRequests at
// once, and returns the outcomes in the order of idx. It returns when every
// call has.
func concurrently(idx []int, f func(i int) (bool, error)) []result {
	out := make([]result, len(idx))
	sem := make(chan struct{}, maxConcurrentRequests)
	var wg sync.WaitGroup
	for k, i := range idx {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ok, err := f(i)
			out[k] = result{i: i, ok: ok, err: err}
		})
	}
	wg.Wait()
	return out
}

// loseRange stops range i at once and forgets its claim.
func (c *Coordinator) loseRange(ctx context.Context, i int, why string) {
	klog.FromContext(ctx).Info("Lost range, stopping it at once", "range", c.ranges[i], "reason", why)
	c.target.StopRange(ctx, c.ranges[i], false)
	delete(c.serving, i)
	c.claims.Forget(i)
}

// startDrain stops delivering range i on a goroutine that reports to
// drainDone; the claim stays held (and renewed) until then.
func (c *Coordinator) startDrain(ctx context.Context, i int) {
	klog.FromContext(ctx).Info("Handing range over: stopping delivery", "range", c.ranges[i])
	delete(c.serving, i)
	c.draining[i] = c.cfg.Clock.Now()
	r := c.ranges[i]
	dctx := c.drainCtx
	if dctx == nil { // round called without Run, in tests
		dctx = context.WithoutCancel(ctx)
	}
	c.drains.Go(func() {
		c.target.StopRange(dctx, r, true)
		c.drainDone <- i
	})
}

// releaseDrained releases the claims of ranges whose graceful stop
// returned.
func (c *Coordinator) releaseDrained(ctx context.Context) {
	for {
		select {
		case i := <-c.drainDone:
			start := c.draining[i]
			delete(c.draining, i)
			if !c.claims.Held(i) {
				continue // lost meanwhile
			}
			if !c.claims.Valid(i) {
				c.loseRange(ctx, i, "claim not renewed within the renew deadline")
				continue
			}
			if err := c.claims.Release(ctx, i); err != nil {
				klog.FromContext(ctx).Error(err, "Releasing a range; it will expire", "range", c.ranges[i])
			}
			d := c.cfg.Clock.Since(start)
			c.metrics.Handover(c.ranges[i], d)
			klog.FromContext(ctx).Info("Handed range over: handlers done, claim released", "range", c.ranges[i], "duration", d)
		default:
			return
		}
	}
}

// Claims returns the coordinator's claims, for a caller that steps the
// ring by hand with Round (a test).
func (c *Coordinator) Claims() *Claims { return c.claims }

// Membership returns the coordinator's membership, for a caller that
// steps the ring by hand with Round (a test).
func (c *Coordinator) Membership() *Membership { return c.membership }
