package metadatainformer

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrtest"
)

// TestSetListOptionsReplacesTheFactoryTweak switches a factory informer
// from the factory's tweak (app=x) to app=y: the factory's tweak is no
// longer applied, the app=x object is deleted and the app=y one added.
func TestSetListOptionsReplacesTheFactoryTweak(t *testing.T) {
	client := fakeClient(t,
		partial("ns-a", "x1", "", map[string]string{"app": "x"}),
		partial("ns-a", "y1", "", map[string]string{"app": "y"}),
	)
	rec := gvrtest.Record(client)
	f := NewFilteredSharedInformerFactory(client, 0, "ns-a", func(o *metav1.ListOptions) { o.LabelSelector = "app=x" })
	events := gvrtest.NewEvents(10)
	gi := gvrtest.Informer(t, f, deployments, events)
	gvrtest.Start(t, f, deployments)
	require.Equal(t, []string{"add ns-a/x1 initial=true"}, events.Next(t, 1))
	<-rec.Watching

	gvrtest.CheckTweakReplaced(t, gi.Informer(), rec, events, "deployments", "ns-a", "ns-a/x1", "ns-a/y1")
}
