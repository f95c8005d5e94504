package ring

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/utils/clock"
)

// Defaults of Config, those of client-go's leader election.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	DefaultRanges        = 16
)

// Labels on every Lease of a ring.
const (
	// LabelRing holds the ring's name.
	LabelRing = "sharding.fanout.kfanout.io/ring"
	// LabelRole is RoleMember or RoleClaim.
	LabelRole = "sharding.fanout.kfanout.io/role"
	// RoleMember marks a replica's membership Lease.
	RoleMember = "member"
	// RoleClaim marks a range's claim Lease.
	RoleClaim = "claim"
)

// Config is the ring a replica takes part in. Every replica of a ring must
// use the same Namespace, Ring and Ranges, and a unique Identity.
type Config struct {
	// Client reaches the coordination.k8s.io/v1 Leases, for example
	// clientset.CoordinationV1().
	Client coordinationv1client.LeasesGetter
	// Namespace holds the ring's Leases.
	Namespace string
	// Ring names the ring: it prefixes every Lease name and is the value of
	// LabelRing, so it must be a valid label value and name prefix.
	Ring string
	// Identity names this replica; it must be unique per process (a pod
	// name plus a random suffix, for example): two processes with one
	// identity would each think they hold the other's claims.
	Identity string
	// Ranges is the number of hash ranges, a power of two (DefaultRanges
	// if 0). Claim names carry it, so rings that differ in it do not share
	// claims, but they also do not fence each other: never run one ring
	// with two values.
	Ranges int
	// LeaseDuration is how long a Lease stays valid after its last renewal,
	// for members and claims (DefaultLeaseDuration if 0).
	LeaseDuration time.Duration
	// RenewDeadline is how long after its last successful renewal a replica
	// keeps delivering a range (DefaultRenewDeadline if 0). It must leave
	// room for two retry periods before LeaseDuration.
	RenewDeadline time.Duration
	// RetryPeriod is the time between two rounds of renewing, assigning
	// and acquiring (DefaultRetryPeriod if 0).
	RetryPeriod time.Duration
	// Clock is the time source; the real clock if nil.
	Clock clock.Clock
}

// complete fills defaults and checks the values.
func (c Config) complete() (Config, error) {
	if c.Ranges == 0 {
		c.Ranges = DefaultRanges
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = DefaultRetryPeriod
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	var errs []error
	if c.Client == nil {
		errs = append(errs, errors.New("Client is nil"))
	}
	if c.Namespace == "" || c.Ring == "" || c.Identity == "" {
		errs = append(errs, errors.New("Namespace, Ring and Identity must be set"))
	}
	if err := validateRangeCount(c.Ranges); err != nil {
		errs = append(errs, err)
	}
	for _, msg := range validation.IsValidLabelValue(c.Ring) {
		errs = append(errs, fmt.Errorf("Ring: %s", msg))
	}
	for _, name := range []string{memberLeaseName(c.Ring, c.Identity), claimLeaseName(c.Ring, c.Ranges, c.Ranges-1)} {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			errs = append(errs, fmt.Errorf("Lease name %q: %s", name, msg))
		}
	}
	if c.RetryPeriod <= 0 || c.RenewDeadline <= 0 || c.LeaseDuration <= c.RenewDeadline+2*c.RetryPeriod {
		errs = append(errs, fmt.Errorf("need LeaseDuration > RenewDeadline + 2*RetryPeriod > 0, got %v, %v, %v", c.LeaseDuration, c.RenewDeadline, c.RetryPeriod))
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("sharding: invalid Config: %w", err)
	}
	return c, nil
}

func memberLeaseName(ring, identity string) string {
	return ring + "-member-" + identity
}

func claimLeaseName(ring string, count, index int) string {
	return fmt.Sprintf("%s-range-%d-of-%d", ring, index, count)
}

func leaseSeconds(d time.Duration) int32 {
	s := int32((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

type leaseClient = coordinationv1client.LeaseInterface
