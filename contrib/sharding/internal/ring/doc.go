// Package ring is the lease machinery of package sharding: the hash
// ranges and their assignment to the live members (rendezvous hashing),
// the members' Leases, the per-range claim Leases that fence delivery, and
// the coordinator that renews, assigns, hands over and acquires, starting
// and stopping the sharded informer's ranges (its Target). It is internal:
// a user configures a ring through sharding.Config and runs it through
// sharding.ShardedInformer; cmd/shardreplica drives a coordinator itself
// to trace its calls.
package ring
