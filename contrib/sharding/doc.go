// Package sharding spreads one resource's objects over the replicas of a
// controller: each replica lists and watches only the hash ranges it owns,
// using Kubernetes' sharded list and watch (KEP-5866,
// ListOptions.ShardSelector) where the server supports it and filtering on
// the client where it does not.
//
// # Pieces
//
//   - [Ranges] and [Assign]: the FNV-1a 64-bit hash space split into a
//     power-of-two number of ranges, assigned to the live members by
//     rendezvous hashing (deterministic; a change of members moves only the
//     ranges it must).
//   - [Membership]: one coordination.k8s.io/v1 Lease per replica, labelled
//     with the ring's name; a replica that stops renewing is gone after the
//     lease duration.
//   - [Claims]: one Lease per range, taken and renewed with
//     resourceVersion-conditioned updates, so the apiserver arbitrates who
//     holds a range.
//   - [Coordinator]: the loop that renews, assigns, hands over and acquires.
//   - [ShardedInformer]: one fanout informer per owned range, a merged
//     read-only indexer over their stores, and handlers that see a gained
//     range's objects as adds and a lost range's objects as deletes.
//   - [Metrics]: owned ranges, objects per range, handover durations and
//     client-side filtering; package prommetrics publishes them on
//     client_golang, and cmd/shardreplica is a small complete replica.
//
// # Guarantee
//
// At no time do two replicas deliver an add or update of the same object to
// their handlers, under the assumption Kubernetes' leader election makes:
// clocks may be offset by any amount but run at the same rate (within the
// margin LeaseDuration - RenewDeadline). See [Claims] for the argument.
//
// Unlike the rest of fanout, this module needs client-go, api and
// apimachinery v0.36.0 or later (with controller-runtime v0.24 or later):
// k8s.io/apimachinery/pkg/sharding first appeared in v0.36. Its go.mod
// requires v0.36.0, so adding it moves a module on v0.35 to v0.36.
package sharding
