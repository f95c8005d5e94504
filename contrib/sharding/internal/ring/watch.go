package ring

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// watchLeases watches the ring's Leases until ctx is done and records a
// sighting of every member and claim Lease the moment a change arrives,
// so that a dead replica's last renewal is seen when it is written rather
// than at this replica's next round: its membership and claims then
// expire here one LeaseDuration after that renewal (plus the watch's
// delay) instead of up to one RetryPeriod later. The rounds' lists and
// gets still record sightings; the observer keeps the newest version of
// each Lease, so a late watch event cannot move a sighting back. A watch
// that ends or fails is opened again after RetryPeriod. Sightings only
// count from the local time an event is received, so fencing (see Claims)
// is unchanged. It is Run's: Run starts it and waits for it to return.
func (c *Coordinator) watchLeases(ctx context.Context) {
	logger := klog.FromContext(ctx)
	sel := labels.SelectorFromSet(labels.Set{LabelRing: c.cfg.Ring}).String()
	failed := false
	for ctx.Err() == nil {
		w, err := c.cfg.Client.Leases(c.cfg.Namespace).Watch(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			if !failed && ctx.Err() == nil {
				logger.Error(err, "Watching the ring's Leases; the rounds' lists go on recording sightings")
			}
			failed = true
		} else {
			failed = false
			c.recordSightings(ctx, w)
		}
		select {
		case <-ctx.Done():
		case <-c.cfg.Clock.After(c.cfg.RetryPeriod):
		}
	}
}

// recordSightings records the Leases that w delivers until it ends or ctx
// is done, then stops it.
func (c *Coordinator) recordSightings(ctx context.Context, w watch.Interface) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return
			}
			l, isLease := ev.Object.(*coordinationv1.Lease)
			if !isLease || (ev.Type != watch.Added && ev.Type != watch.Modified) || l.Labels[LabelRing] != c.cfg.Ring {
				continue
			}
			switch l.Labels[LabelRole] {
			case RoleMember:
				c.membership.see(l)
			case RoleClaim:
				c.claims.see(l)
			}
		}
	}
}
