package ring

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// observation is what a replica last saw of another holder's Lease, timed
// on its own clock. A Lease counts as expired only once it has been seen
// unchanged (same resourceVersion) for its whole duration on the local
// clock, so clock offsets between replicas do not matter; only their rates
// do (the assumption client-go's leader election makes).
type observation struct {
	resourceVersion string
	observedAt      time.Time
	duration        time.Duration // the Lease's, when seen
}

// observer remembers observations by Lease name. It is not safe for
// concurrent use.
type observer struct {
	// trustRenewTime lets a first sighting count from the Lease's renew
	// time when it lies in the past: right for membership (a long-dead
	// member is dead at once; a clock offset only skews the assignment for
	// a while), wrong for claims, which count from the first sighting.
	trustRenewTime bool
	seen           map[string]observation
}

// expired reports whether lease, seen now, has outlived its duration, and
// records the sighting. A Lease seen for the first time counts from now,
// or with trustRenewTime from its renew time if that is earlier.
func (o *observer) expired(lease *coordinationv1.Lease, now time.Time) bool {
	if o.seen == nil {
		o.seen = map[string]observation{}
	}
	prev, ok := o.seen[lease.Name]
	if ok && older(lease.ResourceVersion, prev.resourceVersion) {
		// A watch event delivered after a newer list or get: what was
		// seen stands (a renewal seen again later would only delay the
		// expiry).
		return !now.Before(prev.observedAt.Add(prev.duration))
	}
	if !ok || prev.resourceVersion != lease.ResourceVersion {
		at := now
		if !ok && o.trustRenewTime && lease.Spec.RenewTime != nil && lease.Spec.RenewTime.Time.Before(now) {
			at = lease.Spec.RenewTime.Time
		}
		prev = observation{resourceVersion: lease.ResourceVersion, observedAt: at, duration: leaseDuration(lease)}
		o.seen[lease.Name] = prev
	}
	return !now.Before(prev.observedAt.Add(prev.duration))
}

// older reports whether resource version a is older than b. Versions
// that are not comparable (not the apiserver's decimal integers) are not
// older.
func older(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c < 0
}

// nextExpiry is the earliest expiry after now of the Leases seen, except
// the one named skip; ok is false if there is none.
func (o *observer) nextExpiry(now time.Time, skip string) (time.Time, bool) {
	var first time.Time
	for name, ob := range o.seen {
		at := ob.observedAt.Add(ob.duration)
		if name != skip && at.After(now) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first, !first.IsZero()
}

// expiresAt is when the Lease named name, as last seen, expires; ok is
// false if it was never seen.
func (o *observer) expiresAt(name string) (time.Time, bool) {
	prev, ok := o.seen[name]
	return prev.observedAt.Add(prev.duration), ok
}

// forget drops what was seen of a Lease.
func (o *observer) forget(name string) {
	delete(o.seen, name)
}

func leaseDuration(lease *coordinationv1.Lease) time.Duration {
	if lease.Spec.LeaseDurationSeconds == nil {
		return DefaultLeaseDuration
	}
	return time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second
}

func holder(lease *coordinationv1.Lease) string {
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}
