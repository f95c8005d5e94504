// Package listprobe marks the one-object list with which an informer's
// SetListOptions checks new list options, so that a ListerWatcher of this
// project that keeps state about the lists it serves (contrib/sharding's
// range source) can tell it from the reflector's lists and leave that
// state alone.
package listprobe

import "context"

type key struct{}

// With returns ctx marked as a probe's.
func With(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// Is reports whether ctx is a probe's.
func Is(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}
