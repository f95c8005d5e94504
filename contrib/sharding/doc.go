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
// Like the rest of fanout, the module requires client-go, api and
// apimachinery v0.35.0, so adding it moves none of a user's versions. The
// shard selector list option (ListOptions.ShardSelector, and the ShardInfo
// a server answers with) first appears in apimachinery v0.36: the module
// writes selectors and evaluates them itself, the apiserver's way, and
// sets the option where the linked apimachinery has it. Linked with v0.35,
// or against a server without the ShardedListAndWatch feature gate, every
// range informer lists all objects and filters on the client (logged once,
// and counted by Metrics.ClientFiltered).
package sharding
