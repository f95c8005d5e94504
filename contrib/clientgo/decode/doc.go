// Package decode is fanout's decode path for informers: a transport
// filter that removes the fields an informer would drop (managedFields,
// and fields the user lists) from list, watch and watch-list responses,
// protobuf and JSON, before any client decodes them, so that they are
// never allocated. Any clientset, dynamic or metadata client built on the
// wrapped rest.Config, and so any informer factory, gets objects equal to
// what client-go decodes, less the dropped fields.
//
//	cfg = decode.Wrap(cfg, decode.Options{DropManagedFields: true})
//	cs := kubernetes.NewForConfigOrDie(cfg)
//
// Pair it with informer.ShareEqualValues (or the lighter
// informer.InternLabelsAndAnnotations) as the informer's transform to
// share what cached objects have in common; BENCHMARKS.md measures each.
package decode
