// Package clientgo adapts fanout informers to client-go's types. The tests
// that compare it with client-go live in the parity module.
package clientgo
