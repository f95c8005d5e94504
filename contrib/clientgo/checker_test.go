package clientgo

import (
	"errors"
	"reflect"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// doneChecker is client-go's DoneChecker (v0.36+), named here so that the
// tests build against v0.35 as well.
type doneChecker interface {
	Name() string
	Done() <-chan struct{}
}

// checkerOf returns x.HasSyncedChecker(), or false on a client-go whose
// interfaces have no such method (v0.35).
func checkerOf(t *testing.T, x any) (doneChecker, bool) {
	t.Helper()
	m := reflect.ValueOf(x).MethodByName("HasSyncedChecker")
	if !m.IsValid() {
		require.False(t, hasDoneChecker, "%T has no HasSyncedChecker although the linked client-go has DoneChecker", x)
		return nil, false
	}
	c, ok := m.Call(nil)[0].Interface().(doneChecker)
	require.True(t, ok, "%T.HasSyncedChecker() is no DoneChecker", x)
	return c, true
}

// requireCheckersDone waits, in the current bubble, until the
// HasSyncedChecker of each of xs is done (on client-go v0.36+), or, on
// v0.35, until its HasSynced reports true.
func requireCheckersDone(t *testing.T, xs ...interface{ HasSynced() bool }) {
	t.Helper()
	for _, x := range xs {
		c, ok := checkerOf(t, x)
		if !ok {
			require.True(t, cache.WaitForCacheSync(nil, x.HasSynced))
			continue
		}
		<-c.Done()
	}
}

// TestCheckerMirrorFollowsFanout: on client-go v0.36+ the adapters'
// checkers carry fanout's names, stay open before Run and before sync,
// and close once fanout's do; on v0.35 the adapters have no such method.
func TestCheckerMirrorFollowsFanout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource()
		src.put("a", "x", "1", false)
		src.setListError(errors.New("not yet"))
		inf := NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil)
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		require.NoError(t, err)
		fanoutInf, _ := FanoutInformer(inf)
		fanoutReg := reg.(*registration).inner
		infChecker, ok := checkerOf(t, inf)
		if !ok {
			return
		}
		regChecker, _ := checkerOf(t, reg)
		ctrlChecker, _ := checkerOf(t, inf.GetController())
		require.Equal(t, fanoutInf.HasSyncedChecker().Name(), infChecker.Name())
		require.Equal(t, fanoutInf.HasSyncedChecker().Name(), ctrlChecker.Name())
		require.Equal(t, fanoutReg.HasSyncedChecker().Name(), regChecker.Name())

		stop := runInformer(inf)
		defer stop()
		synctest.Wait()
		for _, c := range []doneChecker{infChecker, regChecker, ctrlChecker} {
			require.False(t, isClosed(c.Done()), "%s done before the list", c.Name())
		}
		src.setListError(nil)
		<-infChecker.Done()
		<-regChecker.Done()
		require.True(t, inf.HasSynced())
		for _, c := range []doneChecker{infChecker, regChecker, ctrlChecker} {
			require.True(t, isClosed(c.Done()), "%s not done after sync", c.Name())
		}
		// A registration made after sync is done as soon as fanout's is.
		late, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		require.NoError(t, err)
		synctest.Wait()
		lateChecker, _ := checkerOf(t, late)
		require.True(t, isClosed(lateChecker.Done()))
	})
}

// isClosed reports whether ch is closed, without blocking.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
