package parity

import (
	"fmt"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	fcache "github.com/kfanout/fanout/contrib/clientgo/cache"
)

// typeIdenticalSeeds is how many seeds the type-identical package runs per
// mode: the adapter's engine is the same, so a few seeds prove the wiring.
const typeIdenticalSeeds = 30

// TestInformerDifferentialTypeIdentical runs the informer differential
// test with the fanout informer built as a migrated controller builds it:
// by the type-identical package's NewSharedIndexInformer, with no fanout
// option, its queue chosen by the feature gate as in client-go.
func TestInformerDifferentialTypeIdentical(t *testing.T) {
	defer reportReplayed(t)
	build := func(lw cache.ListerWatcher) cache.SharedIndexInformer {
		return fcache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, diffResync, fcache.Indexers{})
	}
	for _, mode := range []diffMode{inOrderMode, deltaFIFOMode} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Setenv("KUBE_FEATURE_InOrderInformers", fmt.Sprint(mode == inOrderMode))
			for seed := int64(1); seed <= typeIdenticalSeeds; seed++ {
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) { runInformerDiffWith(t, seed, mode, build) })
				})
			}
		})
	}
}
