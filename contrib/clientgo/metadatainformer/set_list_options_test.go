package metadatainformer

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrtest"
	"github.com/kfanout/fanout/informer"
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

	fi, ok := clientgo.FanoutInformer(gi.Informer())
	require.True(t, ok)
	appY := informer.ListScope{Tweak: func(o *metav1.ListOptions) { o.LabelSelector = "app=y" }}
	require.NoError(t, fi.SetListOptions(context.Background(), appY))
	require.Equal(t, []string{"delete ns-a/x1", "add ns-a/y1 initial=false"}, events.Next(t, 2))
	require.Eventually(t, func() bool { return len(rec.Calls()) >= 5 }, 10*time.Second, time.Millisecond)
	require.Equal(t, []string{
		`list deployments ns="ns-a" labels="app=y"`, // the check
		`list deployments ns="ns-a" labels="app=y"`,
		`watch deployments ns="ns-a" labels="app=y"`,
	}, rec.Calls()[2:5])
}
