// Package tagjson decodes Kubernetes JSON into typed Go objects by the
// `json:"..."` struct tags of their types, as client-go's JSON serializer
// does (case-sensitive names, unknown fields skipped), but with every
// string going through a Strings table, so that a value repeated across
// objects (label keys and values, images, owner references, namespaces)
// is allocated once instead of once per object, and with slices and maps
// made at their final size.
//
// A type's fields are read once into a plan. What the plan does not
// describe (a type with its own UnmarshalJSON or UnmarshalText, such as
// resource.Quantity, metav1.Time and intstr.IntOrString; []byte; arrays;
// interfaces; a struct with a ",string" field or an embedded pointer) is
// handed, as its exact bytes, to the JSON decoder client-go uses, which
// decodes it as it would in place.
//
// The decoder checks the syntax of everything it reads. It does not try
// to reproduce the reference decoder's errors: on any error, and on input
// whose decoding would depend on the reference decoder's order of
// operations (a key repeated in one object), it stops with an error, and
// its caller decodes the input again with the reference decoder, whose
// result and error then stand. When it succeeds, its object equals the
// reference decoder's.
package tagjson
