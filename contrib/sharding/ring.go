package sharding

import "github.com/kfanout/fanout/contrib/sharding/internal/ring"

// Config is the ring a replica takes part in (Options.Ring). Every replica
// of a ring must use the same Namespace, Ring and Ranges, and a unique
// Identity.
type Config = ring.Config

// Defaults of Config, those of client-go's leader election.
const (
	DefaultLeaseDuration = ring.DefaultLeaseDuration
	DefaultRenewDeadline = ring.DefaultRenewDeadline
	DefaultRetryPeriod   = ring.DefaultRetryPeriod
	DefaultRanges        = ring.DefaultRanges
)

// Labels on every Lease of a ring, for RBAC rules and for finding a
// ring's Leases.
const (
	// LabelRing holds the ring's name.
	LabelRing = ring.LabelRing
	// LabelRole is RoleMember or RoleClaim.
	LabelRole = ring.LabelRole
	// RoleMember marks a replica's membership Lease.
	RoleMember = ring.RoleMember
	// RoleClaim marks a range's claim Lease.
	RoleClaim = ring.RoleClaim
)

// Key is the object field whose hash places an object in a range
// (Options.Key).
type Key = ring.Key

// The two keys KEP-5866 and k8s.io/apimachinery/pkg/sharding support.
const (
	// KeyUID hashes metadata.uid: objects spread evenly, one namespace's
	// objects over every range.
	KeyUID = ring.KeyUID
	// KeyNamespace hashes metadata.namespace: all objects of a namespace
	// land in one range.
	KeyNamespace = ring.KeyNamespace
)

// Range is one of Count equal, contiguous ranges of the 64-bit hash space;
// Metrics and the ShardedInformer's OwnedRanges name ranges with it.
type Range = ring.Range

// Metrics receives a replica's sharding figures (Options.Metrics); package
// prommetrics publishes them on client_golang.
type Metrics = ring.Metrics
