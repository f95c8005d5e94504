// Package demo is the core of the overload demo: it runs a shared informer
// with three handlers (fast, slow, stalled) against a Source that updates
// objects at a steady rate, once for each library: client-go's own
// informer, fanout's with its defaults, and fanout's with OverflowCoalesce
// for the slow and stalled handlers. It reports progress lines, a
// side-by-side table whose columns name the library, and a PNG chart of
// heap and stalled backlog over time.
//
// examples/overload runs it on a simulated source; e2e/cmd/democluster
// (make demo-cluster) runs it on a real kube-apiserver.
package demo
