package informers_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrtest"
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

	gvrtest.CheckTweakReplaced(t, inf, rec, events, "pods", "a", "a/x1", "a/y1")
}
