// Package schemetypes lists the Go types of client-go's scheme, for the
// decoders' differential tests.
package schemetypes

import (
	"reflect"
	"sort"

	"k8s.io/client-go/kubernetes/scheme"
)

// Sorted returns every type registered in client-go's scheme for which
// keep is true, once each, ordered by package path and name.
func Sorted(keep func(reflect.Type) bool) []reflect.Type {
	seen := map[reflect.Type]bool{}
	var ts []reflect.Type
	for _, t := range scheme.Scheme.AllKnownTypes() {
		if seen[t] || !keep(t) {
			continue
		}
		seen[t] = true
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].PkgPath()+"."+ts[i].Name() < ts[j].PkgPath()+"."+ts[j].Name() })
	return ts
}
