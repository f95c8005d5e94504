package ring

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
)

// ErrClaimLost is returned by Claims.Renew when another replica holds the
// range's claim now, or it was deleted.
var ErrClaimLost = errors.New("sharding: claim lost")

// Claims are a replica's claims on ranges: one Lease per range, named
// "<ring>-range-<index>-of-<count>", labelled LabelRing=<ring>,
// LabelRole=claim. Every write is an Update conditioned on the
// resourceVersion last read, so the apiserver lets exactly one of two
// racing replicas win.
//
// # Fencing
//
// A replica delivers a range only while Valid says so: from a successful
// acquire or renew whose request was sent at local time t until
// t + RenewDeadline. Another replica takes a held claim only after it has
// seen the Lease unchanged for LeaseDuration on its own clock (observer),
// and its takeover is conditioned on that unchanged resourceVersion, so no
// renewal happened since its first sighting. That sighting came after the
// holder's last renewal was written, which came after t. So the takeover
// happens after t + LeaseDuration in real time, while the old holder stopped
// by t + RenewDeadline + 2*RetryPeriod (the Coordinator checks Valid at
// least every two retry periods; Config requires that to be below
// LeaseDuration). This holds if the two clocks run at the same rate, with
// any offset; a rate difference eats into LeaseDuration - RenewDeadline -
// 2*RetryPeriod. A released claim (empty holder) is taken at once: the
// releasing replica had stopped delivering before it released.
//
// Claims is safe for concurrent use on distinct ranges (the Coordinator
// renews and acquires many at once); calls for one range must not overlap.
type Claims struct {
	cfg Config

	mu   sync.Mutex // guards held and obs; never held during a request
	held map[int]*heldClaim
	obs  observer
}

// heldClaim is a claim this replica holds.
type heldClaim struct {
	lease *coordinationv1.Lease // as last written
	// renewedAt is the local time just before the request of the last
	// successful acquire or renew was sent.
	renewedAt time.Time
}

// NewClaims returns cfg.Identity's claims in cfg.Ring, holding none.
func NewClaims(cfg Config) (*Claims, error) {
	cfg, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	return &Claims{cfg: cfg, held: map[int]*heldClaim{}}, nil
}

func (c *Claims) leases() leaseClient {
	return c.cfg.Client.Leases(c.cfg.Namespace)
}

// Held reports whether the replica holds range i's claim (valid or not).
func (c *Claims) Held(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.held[i]
	return ok
}

// HeldRanges returns the indexes of the ranges whose claims the replica
// holds, in no order.
func (c *Claims) HeldRanges() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]int, 0, len(c.held))
	for i := range c.held {
		out = append(out, i)
	}
	return out
}

// Valid reports whether the replica may deliver range i now: it holds the
// claim and renewed it less than RenewDeadline ago.
func (c *Claims) Valid(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.held[i]
	return ok && c.cfg.Clock.Now().Before(h.renewedAt.Add(c.cfg.RenewDeadline))
}

// Deadline is when range i's claim stops being Valid; zero if not held.
func (c *Claims) Deadline(i int) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.held[i]
	if !ok {
		return time.Time{}
	}
	return h.renewedAt.Add(c.cfg.RenewDeadline)
}

// TryAcquire takes range i's claim if it is free: absent, released, or
// expired as seen from this replica. It reports whether the replica holds it
// now. A claim already held is left alone (use Renew).
func (c *Claims) TryAcquire(ctx context.Context, i int) (bool, error) {
	if c.Held(i) {
		return true, nil
	}
	name := claimLeaseName(c.cfg.Ring, c.cfg.Ranges, i)
	start := c.cfg.Clock.Now()
	cur, err := c.leases().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: c.cfg.Namespace,
			Labels:    map[string]string{LabelRing: c.cfg.Ring, LabelRole: RoleClaim},
		}}
		c.fill(l, start, true)
		created, err := c.leases().Create(ctx, l, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("sharding: create claim %s: %w", name, err)
		}
		c.hold(i, created, start)
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("sharding: get claim %s: %w", name, err)
	}
	if h := holder(cur); h != "" && !c.sightingExpired(cur) {
		return false, nil
	}
	next := cur.DeepCopy()
	c.fill(next, start, true)
	updated, err := c.leases().Update(ctx, next, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sharding: take claim %s: %w", name, err)
	}
	c.hold(i, updated, start)
	return true, nil
}

// Renew moves range i's renew time to now. ErrClaimLost means the claim is
// gone (the replica must stop delivering the range at once); any other
// error leaves it held, and Valid turns false once RenewDeadline passes.
func (c *Claims) Renew(ctx context.Context, i int) error {
	c.mu.Lock()
	h, ok := c.held[i]
	c.mu.Unlock()
	if !ok {
		return ErrClaimLost
	}
	start := c.cfg.Clock.Now()
	next := h.lease.DeepCopy()
	c.fill(next, start, false)
	updated, err := c.leases().Update(ctx, next, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		c.Forget(i)
		return fmt.Errorf("%w: range %d: %v", ErrClaimLost, i, err)
	}
	if err != nil {
		return fmt.Errorf("sharding: renew claim of range %d: %w", i, err)
	}
	c.mu.Lock()
	h.lease, h.renewedAt = updated, start
	c.mu.Unlock()
	return nil
}

// Release gives range i's claim up: it clears the holder, so another
// replica can take it at once. Call it only after the range's handlers are
// done with it. The claim is forgotten whatever the outcome.
func (c *Claims) Release(ctx context.Context, i int) error {
	c.mu.Lock()
	h, ok := c.held[i]
	delete(c.held, i)
	c.mu.Unlock()
	if !ok {
		return nil
	}
	next := h.lease.DeepCopy()
	next.Spec.HolderIdentity = nil
	next.Spec.RenewTime = ptr.To(metav1.NewMicroTime(c.cfg.Clock.Now()))
	_, err := c.leases().Update(ctx, next, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil // already someone else's
	}
	if err != nil {
		return fmt.Errorf("sharding: release claim of range %d: %w", i, err)
	}
	return nil
}

// Observe lists the ring's claims and records a sighting of each (see
// observer), so an expired claim is recognised one LeaseDuration after its
// holder's last renewal, plus at most the time between two Observe calls
// (or, while the Coordinator's watch of the ring's Leases runs, the
// watch's delay), also for ranges this replica does not want yet.
func (c *Claims) Observe(ctx context.Context) error {
	sel := labels.SelectorFromSet(labels.Set{LabelRing: c.cfg.Ring, LabelRole: RoleClaim})
	list, err := c.leases().List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return fmt.Errorf("sharding: list claims: %w", err)
	}
	now := c.cfg.Clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range list.Items {
		if l := &list.Items[i]; holder(l) != c.cfg.Identity {
			c.obs.expired(l, now)
		}
	}
	return nil
}

// see records a sighting of l, a claim Lease of the ring seen on a watch,
// unless this replica holds it.
func (c *Claims) see(l *coordinationv1.Lease) {
	if holder(l) == c.cfg.Identity {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.obs.expired(l, c.cfg.Clock.Now())
}

// sightingExpired records a sighting of another holder's claim and
// reports whether it has expired.
func (c *Claims) sightingExpired(l *coordinationv1.Lease) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.obs.expired(l, c.cfg.Clock.Now())
}

// ExpiresAt is when range i's claim, held by another replica and unchanged
// since this replica last saw it, will count as expired here; ok is false
// if the claim was not seen. The Coordinator wakes up then to take it at
// once rather than at its next round.
func (c *Claims) ExpiresAt(i int) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.obs.expiresAt(claimLeaseName(c.cfg.Ring, c.cfg.Ranges, i))
}

// Forget drops range i's claim locally without writing; the Lease expires.
func (c *Claims) Forget(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.held, i)
}

func (c *Claims) hold(i int, l *coordinationv1.Lease, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.obs.forget(l.Name)
	c.held[i] = &heldClaim{lease: l, renewedAt: at}
}

// fill writes this replica as the holder with renew time now; acquire also
// sets the acquire time and counts a transition.
func (c *Claims) fill(l *coordinationv1.Lease, now time.Time, acquire bool) {
	t := metav1.NewMicroTime(now)
	l.Spec.HolderIdentity = ptr.To(c.cfg.Identity)
	l.Spec.LeaseDurationSeconds = ptr.To(leaseSeconds(c.cfg.LeaseDuration))
	l.Spec.RenewTime = &t
	if acquire {
		l.Spec.AcquireTime = &t
		n := int32(0)
		if l.Spec.LeaseTransitions != nil {
			n = *l.Spec.LeaseTransitions + 1
		}
		l.Spec.LeaseTransitions = &n
	}
}
