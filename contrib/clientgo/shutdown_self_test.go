package clientgo

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// shutDownEventHandler is what client-go v0.37's cache.ShutDownEventHandler
// does (v0.35 and v0.36 lack it): remove the handler, then wait on the
// registration's ShutdownChan.
func shutDownEventHandler(inf cache.SharedInformer, reg cache.ResourceEventHandlerRegistration) error {
	if err := inf.RemoveEventHandler(reg); err != nil {
		return err
	}
	s, ok := reg.(interface{ ShutdownChan() <-chan struct{} })
	if !ok {
		return errors.New("registration has no ShutdownChan")
	}
	<-s.ShutdownChan()
	return nil
}

// A ShutDownEventHandler called from inside the handler it shuts down
// returns (client-go's informer deadlocks there):
// the handler is called no more after that call, and Run returns.
func TestClientGoShutDownEventHandlerFromOwnHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource()
		src.put("a", "x", "1", false)
		inf := NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil)
		var (
			log      callLog
			mu       sync.Mutex
			reg      cache.ResourceEventHandlerRegistration
			errOut   error
			returned = make(chan struct{})
		)
		r, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, initial bool) {
				log.add(describeAdd(obj, initial))
				if initial {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				errOut = shutDownEventHandler(inf, reg)
				close(returned)
			},
		})
		require.NoError(t, err)
		mu.Lock()
		reg = r
		mu.Unlock()
		stop := runInformer(inf)
		defer stop()
		synctest.Wait()
		src.put("a", "y", "1", false)
		select {
		case <-returned:
		case <-time.After(time.Minute):
			t.Fatal("cache.ShutDownEventHandler from its own handler did not return")
		}
		mu.Lock()
		require.NoError(t, errOut)
		mu.Unlock()
		src.put("a", "z", "1", false)
		synctest.Wait()
		require.Equal(t, []string{"add a/x rv=1 initial=true", "add a/y rv=2 initial=false"}, log.get())
	})
}
