package debugpage

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/internal/fakelw"
)

// TestPageShowsWhyNotSynced: an informer whose list is refused shows the
// state and the server's error, in the JSON and on the page.
func TestPageShowsWhyNotSynced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.ConfigMap{})
		src.FailList(apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no RBAC")))
		inf := informer.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil)
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { inf.RunWithContext(ctx) })
		defer wg.Wait()
		defer cancel()
		synctest.Wait()

		p := New(Options{})
		require.NoError(t, p.Register("configmaps", inf))
		var got Snapshot
		require.NoError(t, json.Unmarshal(get(t, p, "/?format=json").Body.Bytes(), &got))
		require.Len(t, got.Informers, 1)
		iv := got.Informers[0]
		assert.Equal(t, "ListFailing", iv.SyncState)
		assert.Contains(t, iv.NotSyncedReason, "list failing (1 failed attempts")
		assert.Contains(t, iv.NotSyncedReason, "configmaps is forbidden: no RBAC")
		assert.Contains(t, get(t, p, "/").Body.String(), `<dd class="not-synced">*v1.ConfigMap: list failing (1 failed attempts`)
	})
}
