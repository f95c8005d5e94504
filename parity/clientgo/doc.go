// Package parity holds the tests that prove contrib/clientgo behaves as
// client-go does: differential tests against client-go's own types,
// client-go's black-box tests run against fanout, controller-runtime and
// sample-controller switched to fanout, and the side-by-side benchmarks.
// It is a module of its own so that its heavy test dependencies never reach
// a user's go.mod.
package parity
