package clientgo

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// TestSyncStatusThroughClientGoInterface reaches SyncStatus from a
// client-go interface value, and a client-go registration's status by its
// fanout registration.
func TestSyncStatusThroughClientGoInterface(t *testing.T) {
	inf := NewSharedIndexInformer(newFakeSource(), &corev1.ConfigMap{}, 0, nil)
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
	require.NoError(t, err)
	f, ok := FanoutInformer(inf)
	require.True(t, ok)
	require.Equal(t, informer.SyncNotStarted, f.SyncStatus().State)

	stop := runInformer(inf)
	defer stop()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	require.NoError(t, informer.WaitForCacheSyncWithContext(ctx, inf.HasSynced, reg.HasSynced))
	st := f.SyncStatus()
	require.Equal(t, informer.SyncSynced, st.State)
	freg, ok := FanoutRegistration(reg)
	require.True(t, ok)
	h, ok := st.Handler(freg)
	require.True(t, ok)
	require.Equal(t, informer.SyncSynced, h.State)
}
