package clientgo

import (
	"reflect"

	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/internal/clientgorelease"
)

// fanout's informer keeps the few behaviours that changed between the
// supported client-go releases as the linked release has them. The
// release is read here from client-go's own API, which every binary that
// links this package carries (test binaries carry no module information).
func init() { clientgorelease.Use(builtWithMinor()) }

// builtWithMinor returns the minor release of the client-go this package
// was built with: 37 and later when MutationCache has OnAddOrUpdate, 36
// when RealFIFOOptions has AtomicEvents, else 35.
func builtWithMinor() int {
	if _, ok := reflect.TypeFor[cache.MutationCache]().MethodByName("OnAddOrUpdate"); ok {
		return 37
	}
	if _, ok := reflect.TypeFor[cache.RealFIFOOptions]().FieldByName("AtomicEvents"); ok {
		return 36
	}
	return 35
}
