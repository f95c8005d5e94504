package ring

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
)

// Membership is a replica's presence in a ring: a Lease named
// "<ring>-member-<identity>" labelled LabelRing=<ring>, LabelRole=member,
// which Renew creates or renews. Members lists the ring's live replicas.
// A Membership is not safe for concurrent use, except for see; the
// Coordinator owns one.
type Membership struct {
	cfg   Config
	lease *coordinationv1.Lease // last written, nil before the first Renew
	mu    sync.Mutex            // guards obs; never held during a request
	obs   observer
}

// NewMembership returns the membership of cfg.Identity in cfg.Ring.
func NewMembership(cfg Config) (*Membership, error) {
	cfg, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	return &Membership{cfg: cfg, obs: observer{trustRenewTime: true}}, nil
}

func (m *Membership) leases() leaseClient {
	return m.cfg.Client.Leases(m.cfg.Namespace)
}

// Renew creates the replica's Lease or moves its renew time to now.
func (m *Membership) Renew(ctx context.Context) error {
	now := metav1.NewMicroTime(m.cfg.Clock.Now())
	if m.lease == nil {
		l := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{
				Name:      memberLeaseName(m.cfg.Ring, m.cfg.Identity),
				Namespace: m.cfg.Namespace,
				Labels:    map[string]string{LabelRing: m.cfg.Ring, LabelRole: RoleMember},
			},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To(m.cfg.Identity),
				LeaseDurationSeconds: ptr.To(leaseSeconds(m.cfg.LeaseDuration)),
				AcquireTime:          &now,
				RenewTime:            &now,
			},
		}
		created, err := m.leases().Create(ctx, l, metav1.CreateOptions{})
		if err == nil {
			m.lease = created
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("sharding: create member lease: %w", err)
		}
		// A previous process with this identity left it: take it over.
		existing, err := m.leases().Get(ctx, l.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("sharding: get member lease: %w", err)
		}
		m.lease = existing
	}
	next := m.lease.DeepCopy()
	next.Spec.HolderIdentity = ptr.To(m.cfg.Identity)
	next.Spec.LeaseDurationSeconds = ptr.To(leaseSeconds(m.cfg.LeaseDuration))
	next.Spec.RenewTime = &now
	updated, err := m.leases().Update(ctx, next, metav1.UpdateOptions{})
	if err != nil {
		// Conflict or NotFound: start over from the server's copy next time.
		m.lease = nil
		return fmt.Errorf("sharding: renew member lease: %w", err)
	}
	m.lease = updated
	return nil
}

// Members lists the identities of the ring's live members, sorted: those
// whose Lease has been renewed within its duration, as seen on the local
// clock (see observer).
func (m *Membership) Members(ctx context.Context) ([]string, error) {
	sel := labels.SelectorFromSet(labels.Set{LabelRing: m.cfg.Ring, LabelRole: RoleMember})
	list, err := m.leases().List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("sharding: list member leases: %w", err)
	}
	now := m.cfg.Clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	present := map[string]bool{}
	for i := range list.Items {
		l := &list.Items[i]
		present[l.Name] = true
		if id := holder(l); id != "" && !m.obs.expired(l, now) {
			out = append(out, id)
		}
	}
	for name := range m.obs.seen {
		if !present[name] {
			m.obs.forget(name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// NextExpiry is when the next other member, as last seen by Members, will
// count as gone unless it renews; ok is false if none is known.
func (m *Membership) NextExpiry() (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.obs.nextExpiry(m.cfg.Clock.Now(), memberLeaseName(m.cfg.Ring, m.cfg.Identity))
}

// see records a sighting of l, a member Lease of the ring seen on a
// watch, unless it is this replica's. It is safe to call concurrently
// with the other methods.
func (m *Membership) see(l *coordinationv1.Lease) {
	if l.Name == memberLeaseName(m.cfg.Ring, m.cfg.Identity) || holder(l) == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.obs.expired(l, m.cfg.Clock.Now())
}

// Leave deletes the replica's Lease, so the others see it gone at once.
func (m *Membership) Leave(ctx context.Context) error {
	name := memberLeaseName(m.cfg.Ring, m.cfg.Identity)
	m.lease = nil
	err := m.leases().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("sharding: delete member lease: %w", err)
	}
	return nil
}
