package gvrtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

// CheckTweakReplaced switches inf, a running factory informer whose
// factory tweak selects app=x and whose handler is events, to app=y
// through clientgo.FanoutInformer, and checks that x (the key of the app=x
// object) is deleted, y (the app=y object's) added, and that the requests
// after the first list and watch (recorded by rec) are the check, the
// relist and the watch of resource in namespace, all with app=y only.
func CheckTweakReplaced(t *testing.T, inf cache.SharedIndexInformer, rec *Recorder, events *Events, resource, namespace, x, y string) {
	t.Helper()
	fi, ok := clientgo.FanoutInformer(inf)
	require.True(t, ok)
	appY := informer.ListScope{Tweak: func(o *metav1.ListOptions) { o.LabelSelector = "app=y" }}
	require.NoError(t, fi.SetListOptions(context.Background(), appY))
	require.Equal(t, []string{"delete " + x, "add " + y + " initial=false"}, events.Next(t, 2))
	require.Eventually(t, func() bool { return len(rec.Calls()) >= 5 }, failAfter, time.Millisecond)
	list := fmt.Sprintf("list %s ns=%q labels=%q", resource, namespace, "app=y")
	watch := fmt.Sprintf("watch %s ns=%q labels=%q", resource, namespace, "app=y")
	require.Equal(t, []string{list, list, watch}, rec.Calls()[2:5])
}
