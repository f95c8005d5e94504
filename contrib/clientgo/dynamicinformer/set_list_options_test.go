package dynamicinformer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrtest"
)

// TestSetListOptionsReplacesTheFactoryTweak switches a factory informer
// from the factory's tweak (app=x) to app=y: the factory's tweak is no
// longer applied, the app=x object is deleted and the app=y one added.
func TestSetListOptionsReplacesTheFactoryTweak(t *testing.T) {
	client := fakeClient(
		configMap("ns-a", "x1", "", map[string]string{"app": "x"}),
		configMap("ns-a", "y1", "", map[string]string{"app": "y"}),
	)
	rec := gvrtest.Record(client)
	f := NewFilteredDynamicSharedInformerFactory(client, 0, "ns-a", appX)
	events := gvrtest.NewEvents(10)
	gi := gvrtest.Informer(t, f, configMaps, events)
	gvrtest.Start(t, f, configMaps)
	require.Equal(t, []string{"add ns-a/x1 initial=true"}, events.Next(t, 1))
	<-rec.Watching

	gvrtest.CheckTweakReplaced(t, gi.Informer(), rec, events, "configmaps", "ns-a", "ns-a/x1", "ns-a/y1")
}
