package informers_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrtest"
	"github.com/kfanout/fanout/informer"
)

// TestSetListOptionsReplacesTheFactoryTweak switches a typed factory's
// informer, reached through clientgo.FanoutInformer, from the factory's
// tweak (app=x) to app=y: the factory's tweak is no longer applied, the
// app=x pod is deleted and the app=y one added.
func TestSetListOptionsReplacesTheFactoryTweak(t *testing.T) {
	labelled := func(name, app string) *corev1.Pod {
		p := testPod("a", name)
		p.Labels = map[string]string{"app": app}
		return p
	}
	cs := fake.NewClientset(labelled("x1", "x"), labelled("y1", "y"))
	rec := gvrtest.Record(cs)
	f := informers.NewFilteredSharedInformerFactory(cs, 0, "a", func(o *metav1.ListOptions) { o.LabelSelector = "app=x" })
	events := gvrtest.NewEvents(10)
	inf := f.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(events)
	require.NoError(t, err)
	start(t, f)
	require.Equal(t, []string{"add a/x1 initial=true"}, events.Next(t, 1))
	<-rec.Watching

	fi, ok := clientgo.FanoutInformer(inf)
	require.True(t, ok)
	appY := informer.ListScope{Tweak: func(o *metav1.ListOptions) { o.LabelSelector = "app=y" }}
	require.NoError(t, fi.SetListOptions(context.Background(), appY))
	require.Equal(t, []string{"delete a/x1", "add a/y1 initial=false"}, events.Next(t, 2))
	require.Eventually(t, func() bool { return len(rec.Calls()) >= 5 }, 10*time.Second, time.Millisecond)
	require.Equal(t, []string{
		`list pods ns="a" labels="app=y"`, // the check
		`list pods ns="a" labels="app=y"`,
		`watch pods ns="a" labels="app=y"`,
	}, rec.Calls()[2:5])
}
