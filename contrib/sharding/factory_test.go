package sharding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/informers"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

// TestWithShardingFactory runs two replicas' factories with WithSharding
// over one fake clientset (which ignores shard selectors, so the ranges
// filter on the client): the generated ConfigMap listers of the two list
// disjoint sets whose union is every object, each factory's informer is a
// fanout informer, and when one replica stops, the other's lister lists
// every object.
func TestWithShardingFactory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(41, 42))
		cs := fake.NewClientset()
		var all []string
		for i := range 80 {
			name := fmt.Sprintf("cm-%03d", i)
			_, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(leasetest.RandomUID(rng))}}, metav1.CreateOptions{})
			require.NoError(t, err)
			all = append(all, name)
		}
		api := leasetest.NewAPI()
		clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
		type replica struct {
			f      informers.SharedInformerFactory
			cancel context.CancelFunc
		}
		start := func(id string) *replica {
			ring := testConfig(api, clk, id, 8)
			f := informers.NewSharedInformerFactoryWithOptions(cs, 0, WithSharding(Options{Ring: &ring}))
			_, ok := clientgo.FanoutInformer(f.Core().V1().ConfigMaps().Informer())
			require.True(t, ok, "the factory's informer is fanout's")
			ctx, cancel := context.WithCancel(t.Context())
			f.Start(ctx.Done())
			return &replica{f: f, cancel: cancel}
		}
		names := func(r *replica) []string {
			cms, err := r.f.Core().V1().ConfigMaps().Lister().ConfigMaps("default").List(labels.Everything())
			require.NoError(t, err)
			var out []string
			for _, cm := range cms {
				out = append(out, cm.Name)
			}
			slices.Sort(out)
			return out
		}

		a, b := start("a"), start("b")
		settleRing(clk)
		assertPartition(t, all, names(a), names(b))
		assert.True(t, a.f.Core().V1().ConfigMaps().Informer().HasSynced())

		b.cancel()
		b.f.Shutdown()
		settleRing(clk)
		assert.Equal(t, all, names(a), "the survivor lists every object")
		a.cancel()
		a.f.Shutdown()
	})
}
