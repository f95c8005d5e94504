// Package demo is the core of the overload demo: it runs one shared
// informer with three handlers (fast, slow, stalled) against a Source that
// updates objects at a steady rate, once with client-go's behaviour
// (OverflowGrow) and once with coalescing (OverflowCoalesce), and reports
// progress lines, a side-by-side table and an SVG chart of heap and
// stalled backlog.
//
// examples/overload runs it on a simulated source; e2e/cmd/democluster
// (make demo-cluster) runs it on a real kube-apiserver.
package demo
