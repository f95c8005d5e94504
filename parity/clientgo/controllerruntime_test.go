package parity

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
)

// configMapAPI serves just enough of an API server for a controller-runtime
// cache of ConfigMaps: a list with one object, and a watch that stays open
// without events until the client goes away. Like an API server without
// the WatchList feature, it refuses a streamed list (422 Invalid), so the
// reflector falls back to list and watch.
func configMapAPI(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/configmaps" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("sendInitialEvents") == "true" {
			w.WriteHeader(http.StatusUnprocessableEntity)
			status := metav1.Status{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
				Status:   metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
				Message: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
			}
			if err := json.NewEncoder(w).Encode(&status); err != nil {
				t.Errorf("encode: %v", err)
			}
			return
		}
		if r.URL.Query().Get("watch") == "true" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		list := corev1.ConfigMapList{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"},
			ListMeta: metav1.ListMeta{ResourceVersion: "7"},
			Items: []corev1.ConfigMap{{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", ResourceVersion: "7"},
			}},
		}
		if err := json.NewEncoder(w).Encode(&list); err != nil {
			t.Errorf("encode: %v", err)
		}
	}))
}

func TestControllerRuntimeCacheUsesFanout(t *testing.T) {
	srv := configMapAPI(t)
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()

	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	c, err := crcache.New(&rest.Config{Host: srv.URL}, crcache.Options{
		HTTPClient:  &http.Client{Transport: transport},
		Scheme:      scheme.Scheme,
		Mapper:      mapper,
		NewInformer: clientgo.NewSharedIndexInformer,
	})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	inf, err := c.GetInformer(ctx, &corev1.ConfigMap{})
	require.NoError(t, err)
	sii, ok := inf.(toolscache.SharedIndexInformer)
	require.True(t, ok, "controller-runtime informer is %T", inf)
	_, ok = clientgo.FanoutInformer(sii)
	require.True(t, ok, "controller-runtime informer is not fanout's: %T", inf)

	var mu sync.Mutex
	var adds []string
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			mu.Lock()
			defer mu.Unlock()
			adds = append(adds, describeAdd(obj, initial))
		},
	})
	require.NoError(t, err)

	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = c.Start(ctx) })
	require.True(t, c.WaitForCacheSync(ctx))
	require.True(t, toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced))

	var cm corev1.ConfigMap
	require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "cm"}, &cm))
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"add ns/cm rv=7 initial=true"}, adds)
}
