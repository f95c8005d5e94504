// Package clientgo adapts fanout informers to client-go's types and holds the
// differential tests and side-by-side benchmarks against client-go.
package clientgo
