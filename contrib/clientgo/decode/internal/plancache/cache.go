// Package plancache holds the decoders' plans: one per Go type, built on
// first use together with the plans of every type it reaches.
package plancache

import (
	"reflect"
	"sync"
)

// Cache holds one plan P per Go type. Safe for concurrent use; two
// goroutines building one type's plan at once keep the first stored.
type Cache[P any] struct {
	m sync.Map // reflect.Type -> P
}

// Get returns t's plan, calling build on first use. build makes the plan
// of t and of every type it reaches, recording each in building as soon
// as it starts it (so that recursive types end) and asking Known before
// it starts one.
func (c *Cache[P]) Get(t reflect.Type, build func(t reflect.Type, building map[reflect.Type]P) P) P {
	if p, ok := c.m.Load(t); ok {
		return p.(P)
	}
	building := map[reflect.Type]P{}
	build(t, building)
	for bt, bp := range building {
		c.m.LoadOrStore(bt, bp)
	}
	p, _ := c.m.Load(t)
	return p.(P)
}

// Known returns the plan of t if it is stored or being built.
func (c *Cache[P]) Known(t reflect.Type, building map[reflect.Type]P) (P, bool) {
	if p, ok := building[t]; ok {
		return p, true
	}
	if p, ok := c.m.Load(t); ok {
		return p.(P), true
	}
	var zero P
	return zero, false
}

// Range calls fn with each stored plan while fn returns true.
func (c *Cache[P]) Range(fn func(t reflect.Type, p P) bool) {
	c.m.Range(func(k, v any) bool { return fn(k.(reflect.Type), v.(P)) })
}
