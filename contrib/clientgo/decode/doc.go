// Package decode is fanout's decode path for informers. It has two parts,
// used together for the leanest informers:
//
//   - Wrap and NewTransport: a transport filter that removes the fields an
//     informer would drop (managedFields, and fields the user lists) from
//     list, watch and watch-list responses, protobuf and JSON, before any
//     client decodes them, so that they are never allocated. Any client
//     built on the wrapped rest.Config gets objects equal to what
//     client-go decodes, less the dropped fields.
//   - NewClientset and RESTClientFor: clients whose protobuf objects are
//     built by fanout's own decoder, which reads the k8s.io/api types'
//     protobuf tags, makes each repeated string once and gives equal
//     encoded parts (a container, a label map, a list of tolerations) one
//     shared value while decoding, instead of building them again. Objects
//     equal what client-go decodes, and share memory: they are for
//     informers, whose cache is read-only, not for objects you change.
//
// Together:
//
//	cfg = decode.Wrap(cfg, decode.Options{DropManagedFields: true})
//	cs, err := decode.NewClientset(cfg) // give cs to an informer factory
//
// With a JSON content type, or with client-go's clients, pair the filter
// with informer.ShareEqualValues (or the lighter
// informer.InternLabelsAndAnnotations) as the informer's transform
// instead; BENCHMARKS.md measures each.
package decode

//go:generate env GOWORK=off go run ./internal/genclientset
