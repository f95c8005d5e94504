// Package decode is fanout's decode path for informers. Its parts are
// used together for the leanest informers:
//
//   - Wrap and NewTransport: a transport filter that removes the fields an
//     informer would drop (managedFields, and fields the user lists) from
//     list, watch and watch-list responses, protobuf and JSON, before any
//     client decodes them, so that they are never allocated. Any client
//     built on the wrapped rest.Config gets objects equal to what
//     client-go decodes, less the dropped fields.
//   - NewClientset and RESTClientFor: clients whose objects, protobuf or
//     JSON, are built by fanout's own decoders, which read the k8s.io/api
//     types' protobuf or JSON tags and make each repeated string once;
//     the protobuf one also gives equal encoded parts (a container, a
//     label map, a list of tolerations) one shared value while decoding,
//     instead of building them again. NewClientset's lists are decoded
//     item by item as they stream, never held whole as bytes.
//     Objects equal what client-go decodes, and share memory: they are
//     for informers, whose cache is read-only, not for objects you
//     change.
//   - DynamicClientFor: the same for unstructured objects, a dynamic client
//     whose JSON decoder makes each repeated key and string once and
//     decodes a list's items once.
//
// Together:
//
//	cfg = decode.Wrap(cfg, decode.Options{DropManagedFields: true})
//	cs, err := decode.NewClientset(cfg) // give cs to an informer factory
//
// With client-go's clients, pair the filter with informer.ShareEqualValues
// (or the lighter informer.InternLabelsAndAnnotations) as the informer's
// transform instead; BENCHMARKS.md measures each.
package decode

//go:generate env GOWORK=off go run ./internal/genclientset
