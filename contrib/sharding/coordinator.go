package sharding

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
)

// Target is what a Coordinator starts and stops ranges on; ShardedInformer
// is one. A Target that also has a RoundDone() method is told after each
// round.
type Target = ring.Target

// CoordinatorOptions configure a Coordinator.
type CoordinatorOptions = ring.CoordinatorOptions

// Coordinator runs a replica's part in a ring for a Target of the caller's
// own, for a program that wraps the ShardedInformer (to trace its range
// starts and stops, say); ShardedInformer.RunWithContext runs one itself.
// Every RetryPeriod it renews the replica's membership and claims, assigns
// the ranges to the live members, hands over the ranges it no longer owns
// (StopRange, then it releases the claim) and takes the ranges it owns
// once they are free (it claims them, then StartRange).
type Coordinator struct {
	c *ring.Coordinator
}

// NewCoordinator returns the coordinator of cfg.Identity in cfg.Ring that
// starts and stops ranges on target. It fails if cfg is invalid or target
// is nil.
func NewCoordinator(cfg Config, target Target, opts CoordinatorOptions) (*Coordinator, error) {
	c, err := ring.NewCoordinator(cfg, target, opts)
	if err != nil {
		return nil, err
	}
	return &Coordinator{c: c}, nil
}

// Run takes part in the ring until ctx is done, then leaves it: it hands
// every range over gracefully, releases the claims, deletes its membership
// Lease and returns. Call it once.
func (c *Coordinator) Run(ctx context.Context) { c.c.Run(ctx) }

// HashObject returns the hash of obj's key field, which places it in a
// range (see RangeIndex).
func HashObject(key Key, obj runtime.Object) (uint64, error) { return ring.HashObject(key, obj) }

// RangeIndex returns the index of the range, out of count, that holds
// hash.
func RangeIndex(hash uint64, count int) int { return ring.RangeIndex(hash, count) }
