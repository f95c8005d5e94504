// Package cgreflect reads the few unexported fields of client-go's shared
// informer and informer factory that fanout's factories need: what a
// generated informer constructor chose (its ListerWatcher, example object,
// description and resource) and what a factory's options chose (namespace
// and list-options tweak).
//
// client-go exposes none of these, so the package reads them with reflect.
// CheckLayout verifies, before any read, that every field it reads exists
// with the type it expects; a client-go whose layout differs makes every
// read return an error naming the field, never a zero value. The layout was
// checked on client-go v0.35, v0.36 and v0.37 (SupportedRange); a release
// outside that range fails CheckLayout with an error naming the range.
package cgreflect
