// Package sharding spreads one resource's objects over the replicas of a
// controller: each replica lists and watches only the hash ranges it owns,
// using Kubernetes' sharded list and watch (KEP-5866,
// ListOptions.ShardSelector) where the server supports it and filtering on
// the client where it does not.
//
// # Pieces
//
// A user configures a [ShardedInformer] with [Options] (the ring, as a
// [Config]; the [Key] objects are hashed by; [Metrics]) and runs it, or
// gets one per resource from a factory ([WithSharding], [NewInformerFunc]).
// A program that wraps the informer (to trace its ranges, say) runs a
// [Coordinator] for it instead; [HashObject] and [RangeIndex] tell which
// range holds an object.
// Behind it, in the module's internal packages:
//
//   - ranges and assignment: the FNV-1a 64-bit hash space split into a
//     power-of-two number of [Range]s, assigned to the live members by
//     rendezvous hashing (deterministic; a change of members moves only the
//     ranges it must);
//   - membership: one coordination.k8s.io/v1 Lease per replica, labelled
//     with the ring's name ([LabelRing]); a replica that stops renewing is
//     gone after the lease duration;
//   - claims: one Lease per range, taken and renewed with
//     resourceVersion-conditioned updates, so the apiserver arbitrates who
//     holds a range;
//   - the coordinator's rounds: renew, assign, hand over and acquire,
//     starting and stopping the informer's ranges.
//
// The ShardedInformer runs one fanout informer per owned range, a merged
// read-only indexer over their stores, and handlers that see a gained
// range's objects as adds and a lost range's objects as deletes. Package
// prommetrics publishes Metrics on client_golang, and cmd/shardreplica is
// a small complete replica.
//
// # Guarantee
//
// At no time do two replicas deliver an add or update of the same object to
// their handlers, under the assumption Kubernetes' leader election makes:
// clocks may be offset by any amount but run at the same rate (within the
// margin LeaseDuration - RenewDeadline); the claims' doc in
// internal/ring gives the argument.
//
// Unlike the rest of fanout, this module needs client-go, api and
// apimachinery v0.36.0 or later (with controller-runtime v0.24 or later):
// k8s.io/apimachinery/pkg/sharding first appeared in v0.36. Its go.mod
// requires v0.36.0, so adding it moves a module on v0.35 to v0.36.
package sharding
