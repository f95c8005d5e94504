// Package transform holds transforms that cut the memory an informer's
// cache of decoded objects takes: dropping fields nobody reads
// (DropManagedFields, DropFields), interning label and annotation strings
// (InternLabelsAndAnnotations), and sharing equal values between cached
// objects (ShareEqualValues). Set one, or several with ChainTransforms,
// with the informer's SetTransform before it runs. Package informer
// offers the same names, as client-go-shaped callers expect to find them
// there.
package transform

import "github.com/kfanout/fanout/deltafifo"

// Func is a transform: it is given each object the informer receives,
// before the object is queued and cached, and returns what is cached
// instead (the informer's TransformFunc).
type Func = deltafifo.TransformFunc
