// Package tagproto decodes Kubernetes protobuf into typed Go objects by
// the `protobuf:"..."` struct tags of their types, as the generated
// Unmarshal methods of k8s.io/api do, but with every string going through
// a Strings table, so that a value repeated across objects (label keys and
// values, images, owner references, namespaces) is allocated once instead
// of once per object.
//
// A type's tags are read once into a plan (field number to offset and
// kind); types whose wire form is written by hand (resource.Quantity,
// metav1.Time, metav1.MicroTime, and slice or map types with an Unmarshal
// method, such as authentication's ExtraValue) are decoded by their own
// Unmarshal method, and so is any type whose fields the plan cannot
// describe. Errors and the handling of unknown fields follow the
// generated code: an unknown field is skipped, a truncated or malformed
// field fails the whole message.
package tagproto
