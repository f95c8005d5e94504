package informer

import "github.com/kfanout/fanout/transform"

// The memory transforms live in package transform; these are the same
// functions under the names informer users already call.

// ManagedFieldsPath is the path of metadata.managedFields, for DropFields.
var ManagedFieldsPath = transform.ManagedFieldsPath

// DropManagedFields returns a transform that clears metadata.managedFields
// of every object before it is queued and cached; see
// transform.DropManagedFields.
func DropManagedFields() TransformFunc { return transform.DropManagedFields() }

// DropFields returns a transform that clears the fields at paths of every
// object before it is queued and cached; see transform.DropFields.
func DropFields(paths ...[]string) TransformFunc { return transform.DropFields(paths...) }

// InternLabelsAndAnnotations returns a transform that makes equal label
// and annotation strings share memory; see
// transform.InternLabelsAndAnnotations.
func InternLabelsAndAnnotations(maxEntries int) TransformFunc {
	return transform.InternLabelsAndAnnotations(maxEntries)
}

// ShareEqualValues returns a transform that makes equal values of cached
// objects share memory; see transform.ShareEqualValues.
func ShareEqualValues() TransformFunc { return transform.ShareEqualValues() }

// ChainTransforms returns a transform that applies fs in order, stopping
// at the first error.
func ChainTransforms(fs ...TransformFunc) TransformFunc { return transform.ChainTransforms(fs...) }
