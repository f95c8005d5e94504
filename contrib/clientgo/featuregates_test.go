package clientgo

import (
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/internal/features"
)

// fanoutWatchList reports whether a new fanout Reflector would stream its
// initial list (the WatchListClient gate as fanout sees it).
func fanoutWatchList() bool {
	r := informer.NewReflector(&informer.ListWatch{}, &v1.Pod{}, informer.NewStore(informer.MetaNamespaceKeyFunc), 0)
	return *r.UseWatchList
}

// TestFollowClientGoFeatureGates checks that, after
// FollowClientGoFeatureGates, a gate set on client-go's registry applies
// to fanout, including the value SetFeatureDuringTest restores.
func TestFollowClientGoFeatureGates(t *testing.T) {
	// Other tests of this package expect fanout's own gate values.
	t.Cleanup(func() { features.Unset(string(clientfeatures.WatchListClient)) })
	FollowClientGoFeatureGates()
	FollowClientGoFeatureGates() // a second call does nothing
	require.True(t, fanoutWatchList(), "fanout's default (client-go's), before any Set")
	clientDefault := clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
	for _, value := range []bool{!clientDefault, clientDefault} {
		t.Run("", func(t *testing.T) {
			t.Run("set", func(t *testing.T) {
				clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, value)
				require.Equal(t, value, clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient))
				require.Equal(t, value, fanoutWatchList())
			})
			require.Equal(t, clientDefault, fanoutWatchList(), "restored to client-go's value")
		})
	}
}
